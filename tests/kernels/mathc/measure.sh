#!/bin/sh
# usage: measure.sh LIFT  -- one line per kernel: name exit-code first message line
cd "$(dirname "$0")"
for f in *.c; do
  fn=${f%.c}
  out=$("$1" "$f" --function "$fn" --to numpy --check --json -o /tmp/mathc_out/$fn --force --timeout 120 2>/tmp/mathc_err_$fn)
  rc=$?
  msg=$(printf '%s' "$out" | python3 -c 'import json,sys
try:
  d=json.load(sys.stdin); c=d.get("check") or {}; print(d["status"], "check=" + str(all(v.get("ok") for v in c.values()) if c else None), (d.get("message") or "")[:150].replace("\n"," "))
except Exception: print("nojson")')
  [ "$msg" = nojson ] && msg=$(head -c 200 /tmp/mathc_err_$fn | tr '\n' ' ')
  echo "$fn $rc $msg"
done
