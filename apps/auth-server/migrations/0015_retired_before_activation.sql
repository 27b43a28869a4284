-- A key retired before its scheduled activation never signed, but kept that activation, which the rotation
-- then read as the time the key actually signing was replaced (keys.ts, retire). Clears it on keys retired so
-- before this fix; retire() no longer leaves one.
UPDATE signing_keys SET activates_at = NULL WHERE retired_at IS NOT NULL AND activates_at > retired_at;
