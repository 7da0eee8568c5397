-- A sealed day's marks, one per transaction that changed it (`marked_by`, the transaction's id), instead of one per
-- day. With one per day, a writer that changed a purchase of a day already marked added no mark (ON CONFLICT DO
-- NOTHING against a committed mark neither waits nor locks); a seal that took that older mark and read the purchases
-- before the writer committed wrote the day without the writer's change and left it unmarked, so the report read
-- the day from a rollup that missed the change until something marked the day again. Now a writer's mark is its own
-- row, committed with its change: a seal takes only the marks committed when it reads them, and reads the purchases
-- after that, so every change it takes a mark of is in what it reads, and a change committed later keeps its mark.
-- Writers still never wait for each other or for a seal (their marks never conflict but with their own).
ALTER TABLE "purchase_rollup_dirty" DROP CONSTRAINT "purchase_rollup_dirty_pkey";--> statement-breakpoint
ALTER TABLE "purchase_rollup_dirty" ADD COLUMN "marked_by" bigint DEFAULT (pg_current_xact_id()::text)::bigint NOT NULL;--> statement-breakpoint
ALTER TABLE "purchase_rollup_dirty" ADD CONSTRAINT "purchase_rollup_dirty_day_marked_by_pk" PRIMARY KEY("day","marked_by");
