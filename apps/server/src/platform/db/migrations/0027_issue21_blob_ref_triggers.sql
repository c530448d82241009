-- Issue 21: blob reference counts kept by one trigger function on every table that holds blobs
-- (see apps/server/src/platform/blobs/references.ts). TG_ARGV[0] names the sha256 column, or with
-- TG_ARGV[1] a jsonb column and the key inside it that holds the sha256 (`system_settings.value.sha256`,
-- the custom logo); a `size` column (or key) of the row, when there is one, gives a new blob row its size.
CREATE OR REPLACE FUNCTION granary_blob_ref() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  col text := TG_ARGV[0];
  sub text := CASE WHEN TG_NARGS > 1 THEN TG_ARGV[1] ELSE NULL END;
  old_sha text;
  new_sha text;
  new_size bigint;
  doc jsonb;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    doc := to_jsonb(OLD);
    IF sub IS NOT NULL THEN doc := doc -> col; END IF;
    old_sha := doc ->> COALESCE(sub, col);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    doc := to_jsonb(NEW);
    IF sub IS NOT NULL THEN doc := doc -> col; END IF;
    new_sha := doc ->> COALESCE(sub, col);
    new_size := COALESCE((doc ->> 'size')::bigint, 0);
  END IF;
  IF old_sha IS NOT DISTINCT FROM new_sha THEN
    RETURN NULL;
  END IF;
  IF new_sha IS NOT NULL THEN
    INSERT INTO blobs AS b (sha256, size, ref_count, zero_since)
    VALUES (new_sha, new_size, 1, NULL)
    ON CONFLICT (sha256) DO UPDATE
      SET ref_count = b.ref_count + 1,
          zero_since = NULL,
          size = CASE WHEN b.size = 0 THEN EXCLUDED.size ELSE b.size END;
  END IF;
  IF old_sha IS NOT NULL THEN
    UPDATE blobs
      SET ref_count = ref_count - 1,
          zero_since = CASE WHEN ref_count - 1 = 0 THEN now() ELSE zero_since END
      WHERE sha256 = old_sha;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER artifacts_blob_ref AFTER INSERT OR DELETE OR UPDATE OF sha256 ON artifacts FOR EACH ROW EXECUTE FUNCTION granary_blob_ref('sha256');
--> statement-breakpoint
CREATE TRIGGER release_bundle_files_blob_ref AFTER INSERT OR DELETE OR UPDATE OF sha256 ON release_bundle_files FOR EACH ROW EXECUTE FUNCTION granary_blob_ref('sha256');
--> statement-breakpoint
CREATE TRIGGER system_settings_blob_ref AFTER INSERT OR DELETE OR UPDATE OF value ON system_settings FOR EACH ROW EXECUTE FUNCTION granary_blob_ref('value', 'sha256');
--> statement-breakpoint
CREATE TRIGGER blob_holds_blob_ref AFTER INSERT OR DELETE OR UPDATE OF sha256 ON blob_holds FOR EACH ROW EXECUTE FUNCTION granary_blob_ref('sha256');
--> statement-breakpoint
INSERT INTO blobs (sha256, size, ref_count, zero_since)
SELECT sha256, max(size), count(*), NULL
FROM (
  SELECT sha256, size FROM artifacts
  UNION ALL SELECT sha256, size FROM release_bundle_files
  UNION ALL SELECT value ->> 'sha256', COALESCE((value ->> 'size')::bigint, 0) FROM system_settings WHERE value ? 'sha256'
) held
GROUP BY sha256
ON CONFLICT (sha256) DO NOTHING;
