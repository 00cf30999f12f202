#!/bin/sh
# npm test's last step: `tsc --noEmit` beside jest rather than before it. tsc uses one core, and
# while jest starts DynamoDB Local, and while its last suite runs alone, a core is idle anyway.
# tsc's findings are printed after the suites' report and fail the run, as before.
report=$(mktemp)
tsc --noEmit > "$report" 2>&1 &
typecheck=$!
node --experimental-vm-modules node_modules/jest/bin/jest.js "$@"
suites=$?
if wait "$typecheck"; then
  rm -f "$report"
  exit "$suites"
fi
cat "$report"
rm -f "$report"
echo "npm test: tsc --noEmit found the type errors above."
exit 1
