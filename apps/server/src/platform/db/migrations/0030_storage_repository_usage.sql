CREATE TABLE "repository_usage" (
	"repository_id" uuid PRIMARY KEY NOT NULL,
	"files_count" bigint DEFAULT 0 NOT NULL,
	"used_bytes" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- Issue 21 quotas: each repository's files and bytes, kept by statement triggers on `artifacts` (one
-- upsert per repository per statement, in the statement's transaction). Rows only for repositories that
-- still exist: a repository's delete removes its row, and its cascaded artifact deletes find none.
CREATE OR REPLACE FUNCTION granary_repository_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO repository_usage AS u (repository_id, files_count, used_bytes)
    SELECT d.repository_id, d.files, d.bytes FROM (
      SELECT n.repository_id, count(*) AS files, sum(n.size) AS bytes FROM granary_new_rows n GROUP BY n.repository_id
    ) d JOIN repositories r ON r.id = d.repository_id ORDER BY d.repository_id
    ON CONFLICT (repository_id) DO UPDATE
      SET files_count = u.files_count + EXCLUDED.files_count, used_bytes = u.used_bytes + EXCLUDED.used_bytes;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE repository_usage u SET files_count = u.files_count - d.files, used_bytes = u.used_bytes - d.bytes
      FROM (SELECT o.repository_id, count(*) AS files, sum(o.size) AS bytes FROM granary_old_rows o GROUP BY o.repository_id) d
     WHERE u.repository_id = d.repository_id;
  ELSE
    INSERT INTO repository_usage AS u (repository_id, files_count, used_bytes)
    SELECT d.repository_id, d.files, d.bytes FROM (
      SELECT x.repository_id, sum(x.files) AS files, sum(x.bytes) AS bytes FROM (
        SELECT n.repository_id, 1 AS files, n.size AS bytes FROM granary_new_rows n
        UNION ALL
        SELECT o.repository_id, -1 AS files, -o.size AS bytes FROM granary_old_rows o
      ) x GROUP BY x.repository_id
    ) d JOIN repositories r ON r.id = d.repository_id
     WHERE d.files <> 0 OR d.bytes <> 0 ORDER BY d.repository_id
    ON CONFLICT (repository_id) DO UPDATE
      SET files_count = u.files_count + EXCLUDED.files_count, used_bytes = u.used_bytes + EXCLUDED.used_bytes;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER artifacts_repository_usage_ins AFTER INSERT ON artifacts
  REFERENCING NEW TABLE AS granary_new_rows FOR EACH STATEMENT EXECUTE FUNCTION granary_repository_usage();
--> statement-breakpoint
CREATE TRIGGER artifacts_repository_usage_upd AFTER UPDATE ON artifacts
  REFERENCING OLD TABLE AS granary_old_rows NEW TABLE AS granary_new_rows FOR EACH STATEMENT EXECUTE FUNCTION granary_repository_usage();
--> statement-breakpoint
CREATE TRIGGER artifacts_repository_usage_del AFTER DELETE ON artifacts
  REFERENCING OLD TABLE AS granary_old_rows FOR EACH STATEMENT EXECUTE FUNCTION granary_repository_usage();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION granary_repository_usage_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM repository_usage WHERE repository_id = OLD.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER repositories_usage_gone AFTER DELETE ON repositories
  FOR EACH ROW EXECUTE FUNCTION granary_repository_usage_gone();
--> statement-breakpoint
INSERT INTO repository_usage (repository_id, files_count, used_bytes)
SELECT r.id, count(a.id), coalesce(sum(a.size), 0)
  FROM repositories r LEFT JOIN artifacts a ON a.repository_id = r.id GROUP BY r.id
ON CONFLICT (repository_id) DO NOTHING;
