-- One provider reference belongs to one purchase from here on. A ledger written before could hold one reference on
-- two purchases (a notification or a statement line settled an in_doubt purchase with another purchase's
-- transaction). Such a group is flagged for a person rather than refused or guessed at: every purchase of it gets a
-- `reference_clash` note naming the others, and an event (its state unchanged, so no money moves and no budget
-- changes). The reference stays on one of them, the first whose own purchase answer carried it (submitted_at is
-- set), or else the first; the others keep it in their note and their history, and are not verified by themselves
-- any more (a person settles them: `topsync purchases resolve`).
WITH clash AS (
  SELECT p.id, p.state, p.reference, p.note AS old_note,
    first_value(p.id) OVER (PARTITION BY p.reference ORDER BY (p.submitted_at IS NULL), p.id) AS keeper,
    array_agg(p.id) OVER (PARTITION BY p.reference ORDER BY p.id
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS ids
  FROM purchases p
  WHERE p.reference IN (
    SELECT reference FROM purchases WHERE reference IS NOT NULL GROUP BY reference HAVING count(*) > 1
  )
), noted AS (
  SELECT c.*, 'reference_clash: reference ' || c.reference ||
    CASE WHEN c.id = c.keeper
      THEN ' is also on purchase ' || array_to_string(array_remove(c.ids, c.id), ', ') ||
        ', which gave it up to this one when a reference came to belong to one purchase'
      ELSE ' was on this purchase and on purchase ' || array_to_string(array_remove(c.ids, c.id), ', ') ||
        '; purchase ' || c.keeper || ' keeps it, and this one no longer carries it'
    END ||
    ': one provider transaction cannot be two purchases, a person decides which purchase it is' AS note
  FROM clash c
), flagged AS (
  UPDATE purchases p SET
    reference = CASE WHEN n.id = n.keeper THEN p.reference END,
    next_verify_at = CASE WHEN n.id = n.keeper THEN p.next_verify_at END,
    note = n.note,
    updated_at = now()
  FROM noted n WHERE p.id = n.id
  RETURNING p.id, p.state, n.note, n.old_note
)
INSERT INTO purchase_events (purchase_id, actor, from_state, to_state, reason)
SELECT id, 'migration:0007_reference_unique', state, state,
  note || CASE WHEN old_note IS NULL THEN '' ELSE ' (its note before: ' || old_note || ')' END
FROM flagged;
--> statement-breakpoint
DROP INDEX "purchases_reference";--> statement-breakpoint
CREATE UNIQUE INDEX "purchases_reference_unique" ON "purchases" USING btree ("reference") WHERE reference is not null;--> statement-breakpoint
CREATE INDEX "purchases_settled_unreferenced" ON "purchases" USING btree ("settled_at") WHERE reference is null and state in ('succeeded', 'failed');
