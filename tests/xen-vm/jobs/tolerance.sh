# The suite's rule for a share measured against the guest's own clock,
# shared by the jobs in dom0 (lib.sh) and the host's checks of what they
# sent back (tests/daemon/pull-go.test). POSIX sh and any awk, busybox's too.
# within VALUE EXPECTED TOLERANCE: fails when any is missing
within() {
	awk -v v="$1" -v e="$2" -v t="$3" 'BEGIN { exit !(v != "" && e != "" && t != "" && v >= e - t && v <= e + t) }'
}

# A share is judged within SHARE_MARGIN points plus 3.5 standard errors of
# N distinct samples; why: docs/TESTING.md, "Shares against the guest's clock".
SHARE_MARGIN=1.5
# busybox's awk has no math library: a square root by Newton's method.
SQRT='function sq(x,  r, i) { if (x <= 0) return 0; r = x + 1; for (i = 0; i < 60; i++) r = (r + x / r) / 2; return r }'
# tolerance WANT N [CLOCK_SE [WANT2 N2 CLOCK_SE2]]: the allowed deviation,
# in points, of a share, or with the second three of a difference of two
# shares of independent runs; nothing (which within fails) without N
# samples. CLOCK_SE is the guest clock's own standard error
# (guest_split_stats), counted up to CLOCK_SE_MAX points (docs/TESTING.md).
CLOCK_SE_MAX=1
tolerance() {
	awk -v p="$1" -v n="$2" -v c="${3:-0}" -v q="${4:-}" -v k="${5:-}" -v d="${6:-0}" \
		-v cm=$CLOCK_SE_MAX -v m=$SHARE_MARGIN "$SQRT"'
		function var(p, n, c) { if (c > cm) c = cm; return 1e4 * p / 100 * (1 - p / 100) / n + c * c }
		BEGIN { if (n == "" || n < 1) exit; v = var(p, n, c)
			if (q != "") { if (k == "" || k < 1) exit; v += var(q, k, d) }
			printf "%.1f", m + 3.5 * sq(v) }'
}
