-- A rate window's calls are rows, not an array in the window's row (ADR 0058). Taking a slot rewrote the
-- whole array: unnest, sort, aggregate and store every call still inside the window, so each call cost time
-- in proportion to the calls before it (on PGlite 2.6 ms at 1,000 calls in the window, 22 ms at 20,000,
-- holding the one session; on PostgreSQL 1.1 and 17 ms), and MAIL_PLATFORM_LIMIT allows a million a day.
-- Now a slot is taken by tenant_rate_take: the window's row is locked (callers from every process take
-- turns there, as before), the calls that left the window are deleted (each once), one row is inserted for
-- a granted call, and the row keeps the count of calls inside it (`live`). Exact as before: at most `limit`
-- calls in any window, refused calls not counted.
CREATE TABLE tenant_rate_hits (
  tenant_id text NOT NULL,
  name text NOT NULL,
  -- The call's time, ms since the epoch (the process's wall clock, as before).
  at bigint NOT NULL
);
CREATE INDEX tenant_rate_hits_window ON tenant_rate_hits (tenant_id, name, at);

ALTER TABLE tenant_rate_hits ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rate_hits_tenant_isolation ON tenant_rate_hits
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, DELETE ON tenant_rate_hits TO tenant_api_tenant;

ALTER TABLE tenant_rate_windows ADD COLUMN live integer NOT NULL DEFAULT 0;
INSERT INTO tenant_rate_hits (tenant_id, name, at) SELECT tenant_id, name, unnest(hits) FROM tenant_rate_windows;
UPDATE tenant_rate_windows SET live = cardinality(hits);
ALTER TABLE tenant_rate_windows DROP COLUMN hits, DROP COLUMN granted;

-- Runs as its caller (the tenant role inside withTenant): RLS holds for both tables. Each statement reads
-- what was committed before it, so after the lock it sees every call a concurrent caller just took.
CREATE FUNCTION tenant_rate_take(p_tenant text, p_name text, p_now bigint, p_limit integer, p_window bigint,
                                 OUT granted boolean, OUT oldest bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_live integer;
  v_gone integer;
BEGIN
  INSERT INTO tenant_rate_windows (tenant_id, name) VALUES (p_tenant, p_name)
  ON CONFLICT (tenant_id, name) DO NOTHING;
  SELECT w.live INTO v_live FROM tenant_rate_windows w
  WHERE w.tenant_id = p_tenant AND w.name = p_name FOR UPDATE;
  DELETE FROM tenant_rate_hits h
  WHERE h.tenant_id = p_tenant AND h.name = p_name AND h.at <= p_now - p_window;
  GET DIAGNOSTICS v_gone = ROW_COUNT;
  granted := v_live - v_gone < p_limit;
  IF granted THEN
    INSERT INTO tenant_rate_hits (tenant_id, name, at) VALUES (p_tenant, p_name, p_now);
  END IF;
  IF granted OR v_gone > 0 THEN
    UPDATE tenant_rate_windows w SET live = v_live - v_gone + granted::integer
    WHERE w.tenant_id = p_tenant AND w.name = p_name;
  END IF;
  -- The first entry of the index, not min(): without statistics the planner aggregates every call instead.
  SELECT h.at INTO oldest FROM tenant_rate_hits h
  WHERE h.tenant_id = p_tenant AND h.name = p_name ORDER BY h.at LIMIT 1;
END
$$;
REVOKE EXECUTE ON FUNCTION tenant_rate_take(text, text, bigint, integer, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tenant_rate_take(text, text, bigint, integer, bigint) TO tenant_api_tenant;
