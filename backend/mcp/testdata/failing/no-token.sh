#!/bin/sh
# A server that cannot start, as @sentry/mcp-server without a token: it prints its usage
# and the real error to stderr and exits 1 before answering anything. Each start appends
# a line to the file $CAIRN_TEST_STARTS names, so a test can count the starts.
[ -n "$CAIRN_TEST_STARTS" ] && echo start >>"$CAIRN_TEST_STARTS"
cat >&2 <<'USAGE'
Usage: sentry-mcp [options]

Options:
  --access-token <token>   Sentry user auth token (required; or SENTRY_ACCESS_TOKEN)
  --host <host>            Sentry host (default: sentry.io)
  --mcp-url <url>          where the tools are served from

Examples:
  sentry-mcp --access-token=sntrys_xxx
USAGE
echo "Error: No access token was provided. Pass one with --access-token or set SENTRY_ACCESS_TOKEN." >&2
exit 1
