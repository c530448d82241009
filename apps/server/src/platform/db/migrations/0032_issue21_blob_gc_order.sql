-- Issue 21: the blob GC walks the reclaimable rows in (zero_since, sha256) order from where its last batch
-- ended (a keyset), not from the start of the zero_since index each time: the dead entries of the rows it
-- already deleted made every batch slower than the one before (100,000 blobs: 36 s, quadratic).
DROP INDEX "blobs_zero_since_idx";--> statement-breakpoint
CREATE INDEX "blobs_gc_order_idx" ON "blobs" USING btree ("zero_since","sha256");