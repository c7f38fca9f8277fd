/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * What the running kernel offers: the direct-socket redirect of our patched
 * kernel (helper bpf_redirect_xsk, action XDP_REDIRECT_XSK) and its batched
 * receive of bpf_redirect_map() into an XSKMAP, asked of the kernel itself
 * and never assumed from a version number.
 *
 * The batched map path: the kernel's BTF has the function
 * xdp_do_redirect_xsk_batch(), which drivers call to receive consecutive
 * XDP_REDIRECTs to one socket together (veth does, in native mode). It
 * makes the plain bpf_redirect_map() program as fast as bpf_redirect_xsk()
 * (doc/guides/patched_kernel.rst), with the map's semantics.
 *
 * The direct-socket redirect, in three steps, each a proof the previous
 * cannot give:
 *   1. BTF: the values of BPF_FUNC_redirect_xsk in enum bpf_func_id and of
 *      XDP_REDIRECT_XSK in enum xdp_action, from /sys/kernel/btf/vmlinux.
 *      Mainline reuses the 2021 RFC's numbers for other things (helper 181
 *      is bpf_loop), so only the names are trusted.
 *   2. The verifier: a minimal XDP program calling that helper on an XSKMAP
 *      must load.
 *   3. A test run of that program on a frame: with no socket bound, the
 *      helper must fall back to bpf_redirect_map's answer for a miss, which
 *      the program asks to be XDP_PASS.
 * The answers are computed once per process.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/mman.h>
#include <sys/socket.h>

#include <linux/bpf.h>
#include <linux/btf.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include <rte_common.h>

#include "af_xdp.h"
#include "af_xdp_kernel.h"
#include "af_xdp_uapi.h"

/* Look value_name up among the enumerators of the enum called enum_name. */
int
af_xdp_btf_enum_value(const struct btf *btf, const char *enum_name,
		      const char *value_name, int64_t *value)
{
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM);
	if (id < 0)
		id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM64);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, (uint32_t)id);
	for (i = 0; i < btf_vlen(t); i++) {
		const char *name;
		int64_t v;

		if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = &btf_enum64(t)[i];

			name = btf__name_by_offset(btf, e->name_off);
			v = (int64_t)btf_enum64_value(e);
		} else {
			const struct btf_enum *e = &btf_enum(t)[i];

			name = btf__name_by_offset(btf, e->name_off);
			v = e->val;
		}
		if (name != NULL && strcmp(name, value_name) == 0) {
			*value = v;
			return 0;
		}
	}
	return -ENOENT;
}

int
af_xdp_kernel_from_btf(const struct btf *btf, struct af_xdp_kernel *k)
{
	int64_t helper, action;

	k->redirect_xsk_helper = -1;
	k->redirect_xsk_action = -1;
	if (af_xdp_btf_enum_value(btf, "bpf_func_id", "BPF_FUNC_redirect_xsk", &helper) != 0) {
		snprintf(k->why, sizeof(k->why),
			 "the kernel has no bpf_redirect_xsk (BPF_FUNC_redirect_xsk is not in its BTF): a kernel without the direct-socket redirect");
		return -ENOENT;
	}
	if (af_xdp_btf_enum_value(btf, "xdp_action", "XDP_REDIRECT_XSK", &action) != 0) {
		snprintf(k->why, sizeof(k->why),
			 "the kernel's BTF has BPF_FUNC_redirect_xsk (%" PRId64 ") but no XDP_REDIRECT_XSK action: not the design we know",
			 helper);
		return -ENOENT;
	}
	if (helper <= 0 || helper > INT32_MAX || action <= XDP_REDIRECT || action > INT32_MAX) {
		snprintf(k->why, sizeof(k->why),
			 "the kernel's BTF gives implausible values: BPF_FUNC_redirect_xsk %" PRId64 ", XDP_REDIRECT_XSK %" PRId64,
			 helper, action);
		return -ERANGE;
	}
	k->redirect_xsk_helper = (int32_t)helper;
	k->redirect_xsk_action = (int32_t)action;
	return 0;
}

/* The kernel function of the batched map path (see the top of this file) */
#define BATCHED_MAP_FUNC "xdp_do_redirect_xsk_batch"

bool
af_xdp_kernel_batched_map_from_btf(const struct btf *btf, struct af_xdp_kernel *k)
{
	k->batched_map = btf__find_by_name_kind(btf, BATCHED_MAP_FUNC, BTF_KIND_FUNC) > 0;
	snprintf(k->batch_why, sizeof(k->batch_why),
		 k->batched_map ?
		 "the kernel receives bpf_redirect_map() into an XSKMAP in batches (" BATCHED_MAP_FUNC " in its BTF)" :
		 "the kernel receives bpf_redirect_map() into an XSKMAP frame by frame (no " BATCHED_MAP_FUNC " in its BTF)");
	return k->batched_map;
}

static struct bpf_insn
insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	return (struct bpf_insn) { .code = code, .dst_reg = dst, .src_reg = src,
				   .off = off, .imm = imm };
}

/*
 * r0 = bpf_redirect_xsk(ctx, xskmap, 0, XDP_PASS); return r0;
 * Returns the program fd, or -errno with the verifier's first words in why.
 */
static int
load_probe_program(int map_fd, int32_t helper, char *why, size_t why_len)
{
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 1);
	const struct bpf_insn insns[] = {
		insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_MAP_FD, 0, map_fd),
		insn(0, 0, 0, 0, 0),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, XDP_PASS),
		insn(BPF_JMP | BPF_CALL, 0, 0, 0, helper),
		insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int fd;
	char *nl;

	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "afxdp_probe", "Dual BSD/GPL", insns,
			   RTE_DIM(insns), &opts);
	if (fd >= 0)
		return fd;
	fd = -errno;
	/* The verifier's verdict is its last line. */
	while ((nl = strrchr(log, '\n')) != NULL && nl[1] == '\0')
		*nl = '\0';
	nl = strrchr(log, '\n');
	snprintf(why, why_len, "the verifier refused a program calling bpf_redirect_xsk (helper %d) on an XSKMAP: %s%s%s",
		 helper, strerror(-fd), log[0] ? ": " : "", nl != NULL ? nl + 1 : log);
	return fd;
}

/* Minimal Ethernet frame for the test run. */
static const uint8_t probe_frame[64] = {
	0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x88, 0xb5,
};

static int
check_kernel(struct af_xdp_kernel *k)
{
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = probe_frame,
		    .data_size_in = sizeof(probe_frame), .repeat = 1);
	int map_fd, prog_fd, ret;
	struct btf *btf;

	btf = btf__load_vmlinux_btf();
	if (btf == NULL) {
		snprintf(k->why, sizeof(k->why),
			 "the kernel exposes no BTF (/sys/kernel/btf/vmlinux: %s): cannot look bpf_redirect_xsk up",
			 strerror(errno));
		snprintf(k->batch_why, sizeof(k->batch_why),
			 "the kernel exposes no BTF: its batched map path, if any, is unknown");
		return -ENOENT;
	}
	af_xdp_kernel_batched_map_from_btf(btf, k);
	ret = af_xdp_kernel_from_btf(btf, k);
	btf__free(btf);
	if (ret != 0)
		return ret;

	map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "afxdp_probe", sizeof(uint32_t),
				sizeof(uint32_t), 1, NULL);
	if (map_fd < 0) {
		ret = -errno;
		snprintf(k->why, sizeof(k->why), "cannot create an XSKMAP to probe the helper: %s%s",
			 strerror(-ret), ret == -EPERM ? " (needs CAP_BPF: run as root)" : "");
		return ret;
	}
	prog_fd = load_probe_program(map_fd, k->redirect_xsk_helper, k->why, sizeof(k->why));
	close(map_fd);
	if (prog_fd < 0)
		return prog_fd;
	ret = bpf_prog_test_run_opts(prog_fd, &run);
	close(prog_fd);
	if (ret != 0) {
		ret = -errno;
		snprintf(k->why, sizeof(k->why), "a test run of bpf_redirect_xsk failed: %s",
			 strerror(-ret));
		return ret;
	}
	if (run.retval != XDP_PASS) {
		snprintf(k->why, sizeof(k->why),
			 "a test run of bpf_redirect_xsk with no socket returned %u, not the fallback XDP_PASS (%u)",
			 run.retval, XDP_PASS);
		return -EPROTO;
	}
	snprintf(k->why, sizeof(k->why),
		 "the kernel has bpf_redirect_xsk (helper %d in its BTF, action XDP_REDIRECT_XSK = %d); the verifier accepts it on an XSKMAP and a test run falls back to the map",
		 k->redirect_xsk_helper, k->redirect_xsk_action);
	return 0;
}

const struct af_xdp_kernel *
af_xdp_kernel_probe(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct af_xdp_kernel kernel;

	pthread_mutex_lock(&lock);
	if (!kernel.probed) {
		kernel.has_direct = check_kernel(&kernel) == 0;
		kernel.probed = true;
		AF_XDP_LOG(DEBUG, "%s; %s", kernel.why, kernel.batch_why);
	}
	pthread_mutex_unlock(&lock);
	return &kernel;
}

bool
af_xdp_kernel_multi_buffer_from_btf(const struct btf *btf)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(btf, "xdp_sock", BTF_KIND_STRUCT);
	if (id < 0)
		return false;
	t = btf__type_by_id(btf, (uint32_t)id);
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (name != NULL && strcmp(name, "sg") == 0)
			return true;
	}
	return false;
}

/* The ring sizes and UMEM of the probe socket: the least a bind takes. */
#define MB_PROBE_RING	4
#define MB_PROBE_CHUNK	2048

/* A socket with its UMEM and rings, not bound: its descriptor, or -errno. */
static int
mb_probe_socket(void *area, size_t len)
{
	struct af_xdp_umem_reg reg = {
		.addr = (uintptr_t)area, .len = len, .chunk_size = MB_PROBE_CHUNK,
	};
	int ring = MB_PROBE_RING;
	int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) != 0 ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &ring, sizeof(ring)) != 0 ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &ring, sizeof(ring)) != 0 ||
	    setsockopt(fd, SOL_XDP, XDP_RX_RING, &ring, sizeof(ring)) != 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Bind a fresh probe socket with flags: 0 or -errno. */
static int
mb_probe_bind(int ifindex, uint32_t queue, uint16_t flags)
{
	const size_t len = (size_t)sysconf(_SC_PAGESIZE);
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP, .sxdp_ifindex = (uint32_t)ifindex,
		.sxdp_queue_id = queue, .sxdp_flags = flags,
	};
	void *area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd, ret;

	if (area == MAP_FAILED)
		return -errno;
	fd = mb_probe_socket(area, len);
	ret = fd < 0 ? fd : bind(fd, (const struct sockaddr *)&sxdp, sizeof(sxdp)) == 0 ? 0 : -errno;
	if (fd >= 0)
		close(fd);
	munmap(area, len);
	return ret;
}

/*
 * 1 where the kernel binds with XDP_USE_SG, 0 where it refuses the flag
 * (EINVAL with it, a bind without it taken), -errno where no bind could say.
 */
static int
mb_probe(int ifindex, uint32_t queue)
{
	int ret = mb_probe_bind(ifindex, queue, XDP_COPY | XDP_USE_SG);

	if (ret == 0)
		return 1;
	if (ret != -EINVAL)
		return ret;
	ret = mb_probe_bind(ifindex, queue, XDP_COPY);
	return ret == 0 ? 0 : ret;
}

static bool
btf_multi_buffer(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool has = btf != NULL && af_xdp_kernel_multi_buffer_from_btf(btf);

	btf__free(btf);
	return has;
}

bool
af_xdp_kernel_multi_buffer(int ifindex, uint32_t queue, enum af_xdp_kernel_mb_why *why)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static int answer = -1;		/* a bind's: 1 took, 0 refused */
	int ret;

	pthread_mutex_lock(&lock);
	if (answer < 0) {
		ret = mb_probe(ifindex, queue);
		if (ret >= 0)
			answer = ret;
		else
			AF_XDP_LOG(DEBUG, "AF_XDP multi-buffer: a bind to queue %u of ifindex %d cannot say (%s): the kernel's BTF is asked",
				   queue, ifindex, strerror(-ret));
	}
	ret = answer;
	pthread_mutex_unlock(&lock);
	if (ret >= 0) {
		*why = ret ? AF_XDP_KERNEL_MB_BIND_TOOK : AF_XDP_KERNEL_MB_BIND_REFUSED;
		return ret;
	}
	*why = btf_multi_buffer() ? AF_XDP_KERNEL_MB_BTF_HAS : AF_XDP_KERNEL_MB_BTF_LACKS;
	return *why == AF_XDP_KERNEL_MB_BTF_HAS;
}

const char *
af_xdp_kernel_mb_why_name(enum af_xdp_kernel_mb_why why)
{
	static const char * const names[] = {
		[AF_XDP_KERNEL_MB_BIND_TOOK] = "bind-took-xdp-use-sg",
		[AF_XDP_KERNEL_MB_BIND_REFUSED] = "bind-refused-xdp-use-sg",
		[AF_XDP_KERNEL_MB_BTF_HAS] = "btf-has-sg",
		[AF_XDP_KERNEL_MB_BTF_LACKS] = "btf-lacks-sg",
	};

	return (unsigned int)why < RTE_DIM(names) ? names[why] : "unknown";
}

unsigned int
af_xdp_kernel_max_skb_frags(void)
{
	unsigned int frags = 0;
	FILE *f = fopen("/proc/sys/net/core/max_skb_frags", "r");

	if (f != NULL) {
		if (fscanf(f, "%u", &frags) != 1)
			frags = 0;
		fclose(f);
	}
	/* The default of every kernel that has no such sysctl. */
	return frags != 0 ? frags : 17;
}
