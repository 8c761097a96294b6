#!/bin/sh
# The job of scripts/xen-run.sh: run /by-hand/job.sh, its output shown on
# the host as it comes, then send back what it left in /by-hand/out.
. /uniprof/jobs/lib.sh
mkdir -p /by-hand/out
cd /by-hand || exit 1
/bin/dash ./job.sh 2>&1 | while IFS= read -r line; do
	echo "UNIPROF-BY-HAND $line"
done
for f in /by-hand/out/*; do
	send_file "$f" "$(basename "$f")"
done
