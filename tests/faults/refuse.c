/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * A kernel that refuses, on demand: preloaded (LD_PRELOAD) into the process
 * under test, this library makes the system calls of the kernel features
 * named in AFXDP_REFUSE fail as a kernel without them, or one that forbids
 * them, fails them.  The driver and the generator then take the path they
 * take on such a kernel, on any kernel: a machine whose kernel allows
 * everything still runs the refusal paths (tests/README.md).
 *
 * Nothing is faked but the answer: every call not named goes to the kernel
 * as it is, and the refused ones never reach it.  AFXDP_REFUSE is a comma
 * list of:
 *
 *   helper:NAME     BPF_PROG_LOAD of a program calling BPF helper NAME
 *                   (bpf_xdp_adjust_meta, ...): EINVAL, with the verifier's
 *                   words ("program of this type cannot use helper ...")
 *   kfunc:NAME      BPF_PROG_LOAD of a program calling kernel function NAME
 *                   (bpf_xdp_metadata_rx_hash, ...): EINVAL, "calling kernel
 *                   function ... is not allowed"
 *   dev_bound       BPF_PROG_LOAD with BPF_F_XDP_DEV_BOUND_ONLY: EINVAL, as
 *                   before Linux 6.3
 *   live_frames     BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES: EPERM
 *   test_run        every BPF_PROG_TEST_RUN: EPERM
 *   tx_metadata     XDP_UMEM_REG with XDP_UMEM_TX_METADATA_LEN: EINVAL, as
 *                   before Linux 6.8
 *   small_umem      XDP_UMEM_REG of a UMEM of one page or less (the
 *                   driver's probes: is a queue free, does a bind take
 *                   XDP_USE_SG): ENOBUFS, as under a memlock limit
 *                   (RLIMIT_MEMLOCK, no CAP_IPC_LOCK) that the port's own
 *                   UMEMs use up, and a socket another process still holds
 *                   keeps charged
 *   xdp_use_sg      bind() of an AF_XDP socket with XDP_USE_SG: EINVAL, as
 *                   before Linux 6.6
 *   busy_poll       SO_PREFER_BUSY_POLL, SO_BUSY_POLL_BUDGET: ENOPROTOOPT,
 *                   as before Linux 5.11
 *   link_events     bind() of a netlink socket to rtnetlink's link group
 *                   (RTMGRP_LINK): EPERM, as netlink_bind() answers where
 *                   the group is not allowed
 *
 * Helper and kernel-function names are resolved to numbers through the
 * running kernel's BTF, as the verifier knows them.  With AFXDP_REFUSE_LOG
 * set to a file, each refusal appends a line "<fault> <detail>" to it, so
 * that a test knows the refusal happened and the path it checks is the
 * refusal's.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/syscall.h>

#include <linux/bpf.h>
#include <linux/if_xdp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <bpf/btf.h>

#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif
#ifndef BPF_F_TEST_XDP_LIVE_FRAMES
#define BPF_F_TEST_XDP_LIVE_FRAMES (1U << 1)
#endif
#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4)
#endif
#define UMEM_TX_METADATA_LEN (1 << 2)	/* XDP_UMEM_TX_METADATA_LEN */
#define SMALL_UMEM 4096			/* a page: the most small_umem refuses */
#define PREFER_BUSY_POLL 69		/* SO_PREFER_BUSY_POLL */
#define BUSY_POLL_BUDGET 70		/* SO_BUSY_POLL_BUDGET */
#ifndef BPF_PSEUDO_KFUNC_CALL
#define BPF_PSEUDO_KFUNC_CALL 2
#endif

#define MAX_NAMED 8

struct named {
	char name[64];
	int32_t id;		/* helper number, or the kernel function's BTF id */
};

static struct {
	bool dev_bound, live_frames, test_run, tx_metadata, small_umem, xdp_use_sg, busy_poll,
	     link_events;
	struct named helpers[MAX_NAMED], kfuncs[MAX_NAMED];
	unsigned int nb_helpers, nb_kfuncs;
} refused;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
say(const char *fault, const char *detail)
{
	const char *path = getenv("AFXDP_REFUSE_LOG");
	char line[160];
	int fd, n;

	if (path == NULL || path[0] == '\0')
		return;
	n = snprintf(line, sizeof(line), "%s %s\n", fault, detail);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		n = -1;
	close(fd);
}

static void
die(const char *fmt, const char *what)
{
	fprintf(stderr, "afxdp-refuse: ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\n");
	exit(99);
}

/* The value of BPF_FUNC_<name less its bpf_ prefix> in the kernel's enum bpf_func_id. */
static int32_t
helper_id(const struct btf *btf, const char *name)
{
	const char *bare = strncmp(name, "bpf_", 4) == 0 ? name + 4 : name;
	int id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	const struct btf_type *t;
	char want[80];
	int i;

	if (id < 0)
		return -1;
	snprintf(want, sizeof(want), "BPF_FUNC_%s", bare);
	t = btf__type_by_id(btf, (uint32_t)id);
	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_enum *e = &btf_enum(t)[i];

		if (strcmp(btf__name_by_offset(btf, e->name_off), want) == 0)
			return e->val;
	}
	return -1;
}

static void
add_named(struct named *set, unsigned int *n, const char *name, int32_t id, const char *what)
{
	if (id < 0)
		die("the running kernel has no %s to refuse", what);
	if (*n == MAX_NAMED)
		die("too many names in AFXDP_REFUSE (%s)", what);
	snprintf(set[*n].name, sizeof(set[*n].name), "%s", name);
	set[*n].id = id;
	(*n)++;
}

static void
parse(void)
{
	const char *spec = getenv("AFXDP_REFUSE");
	struct btf *btf = NULL;
	char *copy, *tok, *save = NULL;

	if (spec == NULL)
		return;
	copy = strdup(spec);
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		bool named = strncmp(tok, "helper:", 7) == 0 || strncmp(tok, "kfunc:", 6) == 0;

		if (named && btf == NULL && (btf = btf__load_vmlinux_btf()) == NULL)
			die("cannot read the kernel's BTF to resolve %s", tok);
		if (strncmp(tok, "helper:", 7) == 0)
			add_named(refused.helpers, &refused.nb_helpers, tok + 7,
				  helper_id(btf, tok + 7), tok);
		else if (strncmp(tok, "kfunc:", 6) == 0)
			add_named(refused.kfuncs, &refused.nb_kfuncs, tok + 6,
				  btf__find_by_name_kind(btf, tok + 6, BTF_KIND_FUNC), tok);
		else if (strcmp(tok, "dev_bound") == 0)
			refused.dev_bound = true;
		else if (strcmp(tok, "live_frames") == 0)
			refused.live_frames = true;
		else if (strcmp(tok, "test_run") == 0)
			refused.test_run = true;
		else if (strcmp(tok, "tx_metadata") == 0)
			refused.tx_metadata = true;
		else if (strcmp(tok, "small_umem") == 0)
			refused.small_umem = true;
		else if (strcmp(tok, "xdp_use_sg") == 0)
			refused.xdp_use_sg = true;
		else if (strcmp(tok, "busy_poll") == 0)
			refused.busy_poll = true;
		else if (strcmp(tok, "link_events") == 0)
			refused.link_events = true;
		else
			die("unknown fault '%s' in AFXDP_REFUSE", tok);
	}
	btf__free(btf);
	free(copy);
}

static void
setup(void)
{
	pthread_once(&once, parse);
}

/* The verifier's words in the caller's log buffer, as a refused load has them. */
static void
verifier_says(const union bpf_attr *attr, const char *words)
{
	char *buf = (char *)(uintptr_t)attr->log_buf;

	if (buf != NULL && attr->log_size > 0 && attr->log_level != 0)
		snprintf(buf, attr->log_size, "%s\nprocessed 0 insns (limit 1000000)\n", words);
}

/* Which refused helper or kernel function the program calls, or NULL. */
static const struct named *
refused_call(const union bpf_attr *attr, bool *kfunc)
{
	const struct bpf_insn *insns = (const struct bpf_insn *)(uintptr_t)attr->insns;
	uint32_t i;
	unsigned int k;

	for (i = 0; insns != NULL && i < attr->insn_cnt; i++) {
		if (insns[i].code != (BPF_JMP | BPF_CALL))
			continue;
		for (k = 0; insns[i].src_reg == 0 && k < refused.nb_helpers; k++)
			if (insns[i].imm == refused.helpers[k].id) {
				*kfunc = false;
				return &refused.helpers[k];
			}
		for (k = 0; insns[i].src_reg == BPF_PSEUDO_KFUNC_CALL && insns[i].off == 0 &&
		     k < refused.nb_kfuncs; k++)
			if (insns[i].imm == refused.kfuncs[k].id) {
				*kfunc = true;
				return &refused.kfuncs[k];
			}
	}
	return NULL;
}

/* -1 with errno set where the call is refused, 0 where it goes to the kernel. */
static int
refuse_bpf(long cmd, const union bpf_attr *attr)
{
	const struct named *call;
	bool kfunc = false;
	char words[160];

	if (cmd == BPF_PROG_TEST_RUN &&
	    (refused.test_run ||
	     (refused.live_frames && (attr->test.flags & BPF_F_TEST_XDP_LIVE_FRAMES)))) {
		say(refused.test_run ? "test_run" : "live_frames", "BPF_PROG_TEST_RUN");
		errno = EPERM;
		return -1;
	}
	if (cmd != BPF_PROG_LOAD)
		return 0;
	if (refused.dev_bound && (attr->prog_flags & BPF_F_XDP_DEV_BOUND_ONLY)) {
		say("dev_bound", attr->prog_name);
		verifier_says(attr, "unknown flag BPF_F_XDP_DEV_BOUND_ONLY");
		errno = EINVAL;
		return -1;
	}
	call = refused_call(attr, &kfunc);
	if (call == NULL)
		return 0;
	if (kfunc)
		snprintf(words, sizeof(words), "calling kernel function %s is not allowed",
			 call->name);
	else
		snprintf(words, sizeof(words), "program of this type cannot use helper %s#%d",
			 call->name, call->id);
	say(kfunc ? "kfunc" : "helper", call->name);
	verifier_says(attr, words);
	errno = EINVAL;
	return -1;
}

long
syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (real == NULL)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == __NR_bpf) {
		setup();
		if (refuse_bpf(a[0], (const union bpf_attr *)a[1]) != 0)
			return -1;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int
setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	static int (*real)(int, int, int, const void *, socklen_t);

	if (real == NULL)
		real = (int (*)(int, int, int, const void *, socklen_t))dlsym(RTLD_NEXT, "setsockopt");
	setup();
	if (refused.tx_metadata && level == SOL_XDP && name == XDP_UMEM_REG &&
	    len >= offsetof(struct xdp_umem_reg, flags) + sizeof(uint32_t) &&
	    (((const struct xdp_umem_reg *)val)->flags & UMEM_TX_METADATA_LEN)) {
		say("tx_metadata", "XDP_UMEM_REG");
		errno = EINVAL;
		return -1;
	}
	if (refused.small_umem && level == SOL_XDP && name == XDP_UMEM_REG &&
	    len >= offsetof(struct xdp_umem_reg, len) + sizeof(uint64_t) &&
	    ((const struct xdp_umem_reg *)val)->len <= SMALL_UMEM) {
		say("small_umem", "XDP_UMEM_REG");
		errno = ENOBUFS;
		return -1;
	}
	if (refused.busy_poll && level == SOL_SOCKET &&
	    (name == PREFER_BUSY_POLL || name == BUSY_POLL_BUDGET)) {
		say("busy_poll", name == PREFER_BUSY_POLL ? "SO_PREFER_BUSY_POLL" :
			"SO_BUSY_POLL_BUDGET");
		errno = ENOPROTOOPT;
		return -1;
	}
	return real(fd, level, name, val, len);
}

/* The fault a bind() to addr is refused for, and *err its errno; NULL where it goes through. */
static const char *
refused_bind(const struct sockaddr *addr, socklen_t len, int *err)
{
	if (addr == NULL)
		return NULL;
	if (refused.xdp_use_sg && addr->sa_family == AF_XDP &&
	    len >= sizeof(struct sockaddr_xdp) &&
	    (((const struct sockaddr_xdp *)addr)->sxdp_flags & XDP_USE_SG)) {
		*err = EINVAL;
		return "xdp_use_sg";
	}
	if (refused.link_events && addr->sa_family == AF_NETLINK &&
	    len >= sizeof(struct sockaddr_nl) &&
	    (((const struct sockaddr_nl *)addr)->nl_groups & RTMGRP_LINK)) {
		*err = EPERM;
		return "link_events";
	}
	return NULL;
}

int
bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	static int (*real)(int, const struct sockaddr *, socklen_t);
	const char *fault;
	int err = 0;

	if (real == NULL)
		real = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
	setup();
	fault = refused_bind(addr, len, &err);
	if (fault != NULL) {
		say(fault, "bind");
		errno = err;
		return -1;
	}
	return real(fd, addr, len);
}
