-- Issue 21: a trash entry holds its blob like the artifact it was (platform/blobs/references.ts): the
-- count moves from the artifact row to the trash row in the deleting transaction, and back on restore.
-- The table is new (0026), so there is nothing to backfill.
CREATE TRIGGER trash_items_blob_ref AFTER INSERT OR DELETE OR UPDATE OF sha256 ON trash_items FOR EACH ROW EXECUTE FUNCTION granary_blob_ref('sha256');
