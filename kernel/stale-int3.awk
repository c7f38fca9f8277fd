# SPDX-License-Identifier: BSD-3-Clause
#
# awk -f stale-int3.awk <console log>
#
# Exit 0, printing the trapping function (as the oops's RIP line names it),
# when the guest kernel died of an int3 that its memory no longer holds: in
# the first "Oops: int3" the Code: line, which the kernel reads back from
# memory, shows no int3 (0xcc) just before the trapping address. Exit 1
# otherwise: no oops, another oops, or the int3 still in memory.
#
# On a CPU this cannot happen: text_poke_bp() writes the int3, the rest and
# then the first byte of the new instruction, and after each step waits for
# every CPU to serialize (an IPI), so a CPU that met the int3 is in the int3
# handler, which finds the patch in progress, before the patching ends.
# qemu's multi-threaded TCG can execute a translation made while the int3
# was in place after the patching has ended (kernel/README.md).

/Oops: int3/ {
	oops = 1
	next
}

oops && /RIP: 0010:/ {
	rip = substr($0, index($0, "RIP: 0010:") + 10)
	next
}

oops && rip != "" && /Code: / {
	for (i = 2; i <= NF; i++)
		if ($i ~ /^<[0-9a-f][0-9a-f]>$/) {
			stale = ($(i - 1) != "cc")
			break
		}
	exit
}

END {
	if (stale)
		print rip
	exit !stale
}
