-- Wakes the daemons when another system inserts purchase requests (DESIGN §5): one NOTIFY per statement.
CREATE OR REPLACE FUNCTION topsync_notify_purchase_request() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('topsync_purchase_requests', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS purchase_requests_notify ON purchase_requests;
--> statement-breakpoint
CREATE TRIGGER purchase_requests_notify AFTER INSERT ON purchase_requests
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_notify_purchase_request();
