// Schema version 4: reminders and escalations of waiting requests (their use is in due.ts).

/**
 * What separates a halt's request JSON from its timers' JSON in the text it writes: a newline,
 * which `JSON.stringify` never puts in its output, so it cannot come from the request itself.
 */
export const TIMERS_SEPARATOR = "\n";

/** Schema version 4: the timers table and the trigger that fills it from a halt's requests. */
export function timersSchema(s: string): string {
  return `
  CREATE TABLE ${s}.timers (
    run_key      bytea NOT NULL REFERENCES ${s}.runs (run_key) ON DELETE CASCADE,
    request_key  bytea NOT NULL,
    idx          integer NOT NULL,
    run_id       text NOT NULL,
    request_id   text NOT NULL,
    kind         text NOT NULL CHECK (kind IN ('reminder', 'escalation')),
    due_ms       bigint NOT NULL,
    to_group     text,
    fired_ms     bigint,
    fired_by     text,
    PRIMARY KEY (run_key, request_key, idx)
  );
  CREATE INDEX timers_by_due ON ${s}.timers (due_ms) WHERE fired_ms IS NULL;

  -- The halt writes a request's JSON, a newline, then its timers' JSON (due.ts, withTimers): the
  -- timers go to their table and the request is kept exactly as written. A JSON \\u0000 (which
  -- jsonb refuses) in a timer's text is made U+FFFD there.
  CREATE FUNCTION ${s}.keep_timers() RETURNS trigger LANGUAGE plpgsql AS $keep$
  DECLARE
    v jsonb;
    v_to text;
    v_cut integer;
  BEGIN
    v_cut := strpos(NEW.request_json, chr(10));
    IF v_cut > 0 THEN
      v := replace(substr(NEW.request_json, v_cut + 1), '\\u0000', '\\ufffd')::jsonb;
      INSERT INTO ${s}.timers (run_key, request_key, idx, run_id, request_id, kind, due_ms,
        to_group)
      SELECT NEW.run_key, NEW.request_key, (t.n - 1)::integer, NEW.run_id, NEW.request_id,
        t.e ->> 'kind', (t.e ->> 'atMs')::bigint, t.e ->> 'to'
        FROM jsonb_array_elements(v) WITH ORDINALITY AS t(e, n)
      ON CONFLICT DO NOTHING;
      NEW.request_json := left(NEW.request_json, v_cut - 1);
    END IF;
    -- Refreshed from the checkpoint by a later halt: an escalation that fired still holds (not
    -- for a request jsonb cannot hold; its reads show the escalation through claimDue only).
    SELECT t.to_group INTO v_to FROM ${s}.timers t
     WHERE t.run_key = NEW.run_key AND t.request_key = NEW.request_key
       AND t.kind = 'escalation' AND t.fired_ms IS NOT NULL
     ORDER BY t.idx DESC LIMIT 1;
    IF v_to IS NOT NULL AND strpos(NEW.request_json, '\\u0000') = 0 THEN
      v := NEW.request_json::jsonb;
      NEW.request_json := jsonb_set(v, '{data}',
        CASE WHEN jsonb_typeof(v -> 'data') = 'object' THEN v -> 'data' ELSE '{}'::jsonb END
          || jsonb_build_object('to', v_to))::text;
    END IF;
    RETURN NEW;
  END
  $keep$;

  CREATE TRIGGER requests_keep_timers BEFORE INSERT OR UPDATE OF request_json
    ON ${s}.requests FOR EACH ROW EXECUTE FUNCTION ${s}.keep_timers();
`;
}
