/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The driver guards against libxdp's leaked program descriptors only when
 * built against a libxdp older than 1.4.1 (AF_XDP_LIBXDP_LEAKS_PROG_FDS,
 * from meson.build): check that the libxdp this process runs leaks exactly
 * when the build says so.  A real lookup, xdp_multiprog__get_from_ifindex(),
 * of a real XDP program attached to the loopback interface of a network
 * namespace of its own.  SKIP (77) where that cannot be made (no root).
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_link.h>

#include <bpf/bpf.h>
#include <xdp/libxdp.h>

#include "unit_test.h"

/* How many of the process's descriptors are of BPF programs. */
static int
count_prog_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	char path[300], target[64];
	struct dirent *e;
	int n = 0;
	ssize_t len;

	if (dir == NULL)
		return -1;
	while ((e = readdir(dir)) != NULL) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += strcmp(target, "anon_inode:bpf-prog") == 0;
	}
	closedir(dir);
	return n;
}

/* XDP_PASS, nothing else: an XDP program that libxdp did not load. */
static int
load_pass_program(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "unit_pass", "GPL", insns, 2, NULL);
}

int
main(void)
{
	struct xdp_multiprog *mp;
	int ifindex, prog_fd, before, after, leaked;

	if (unshare(CLONE_NEWNET) != 0) {
		printf("SKIP: no network namespace of our own: %s\n", strerror(errno));
		return UNIT_SKIP;
	}
	ifindex = (int)if_nametoindex("lo");
	prog_fd = load_pass_program();
	if (ifindex == 0 || prog_fd < 0 ||
	    bpf_xdp_attach(ifindex, prog_fd, XDP_FLAGS_SKB_MODE, NULL) != 0) {
		printf("SKIP: cannot attach an XDP program to lo: %s\n", strerror(errno));
		return UNIT_SKIP;
	}

	before = count_prog_fds();
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	CHECK(!libxdp_get_error(mp) && mp != NULL, "libxdp's lookup of lo's program");
	if (!libxdp_get_error(mp))
		xdp_multiprog__close(mp);
	after = count_prog_fds();
	leaked = after - before;
	printf("libxdp left %d program descriptor(s) open after a lookup; built with AF_XDP_LIBXDP_LEAKS_PROG_FDS=%d\n",
	       leaked, AF_XDP_LIBXDP_LEAKS_PROG_FDS);
	CHECK(leaked >= 0 && leaked <= 1, "%d descriptors more", leaked);
	CHECK((leaked > 0) == (AF_XDP_LIBXDP_LEAKS_PROG_FDS != 0),
	      "the build's leak guard (%d) does not match the libxdp that runs (%d leaked): rebuild",
	      AF_XDP_LIBXDP_LEAKS_PROG_FDS, leaked);

	bpf_xdp_detach(ifindex, XDP_FLAGS_SKB_MODE, NULL);
	close(prog_fd);
	return unit_summary();
}
