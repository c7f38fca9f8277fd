/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Live frames: BPF_PROG_RUN of our XDP program with BPF_F_TEST_XDP_LIVE_FRAMES
 * (Linux 5.18+).  The kernel copies the template into a page pool once per
 * page, runs the program `repeat` times in batches of `batch` frames, and
 * treats each verdict as a driver would: XDP_TX becomes a redirect out of
 * xdp_md.ingress_ifindex, flushed at the end of every batch.  Exactly
 * `repeat` frames are built per call (the last batch is cut short), unless
 * a signal interrupts the call; the program's per-thread counters tell how
 * many were built in any case.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "gen.h"

/* The program, built by clang with the project (bpf/xdp_gen.bpf.c). */
extern const unsigned char xdp_gen_bpf_obj[];
extern const size_t xdp_gen_bpf_obj_len;

struct gen_live {
	struct bpf_object *obj;
	int prog_fd;
	int counters_fd;
};

static struct bpf_map *
find_map_by_suffix(struct bpf_object *obj, const char *suffix)
{
	struct bpf_map *map;
	size_t n = strlen(suffix);

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		size_t len = strlen(name);

		if (len >= n && strcmp(name + len - n, suffix) == 0)
			return map;
	}
	return NULL;
}

/* Runs a program that drops on one frame in live mode: sends nothing. */
static int
probe_live_frames(int prog_fd)
{
	uint8_t frame[GEN_MIN_FRAME] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = frame,
		.data_size_in = sizeof(frame),
		.repeat = 1,
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES);

	return bpf_prog_test_run_opts(prog_fd, &opts) < 0 ? -errno : 0;
}

int
gen_live_open(struct gen_live **lp, const struct gen_cfg *cfg, char *why, size_t whylen)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .object_name = "xdp_gen");
	struct gen_live *l;
	struct bpf_map *rodata;
	struct bpf_program *probe;
	int ret;

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->obj = bpf_object__open_mem(xdp_gen_bpf_obj, xdp_gen_bpf_obj_len, &open_opts);
	if (!l->obj) {
		ret = -errno;
		snprintf(why, whylen, "cannot open the embedded BPF object: %s", strerror(-ret));
		goto fail;
	}
	rodata = find_map_by_suffix(l->obj, ".rodata");
	if (!rodata) {
		ret = -ENOENT;
		snprintf(why, whylen, "the embedded BPF object has no .rodata for its configuration");
		goto fail;
	}
	ret = bpf_map__set_initial_value(rodata, cfg, sizeof(*cfg));
	if (ret < 0) {
		snprintf(why, whylen, "cannot configure the program (.rodata of %u bytes, expected %zu): %s",
			 bpf_map__value_size(rodata), sizeof(*cfg), strerror(-ret));
		goto fail;
	}
	ret = bpf_object__load(l->obj);
	if (ret < 0) {
		snprintf(why, whylen, "cannot load the XDP program: %s%s", strerror(-ret),
			 ret == -EPERM ? " (needs root or CAP_BPF + CAP_NET_ADMIN)" : "");
		goto fail;
	}
	l->prog_fd = bpf_program__fd(bpf_object__find_program_by_name(l->obj, "xdp_gen"));
	l->counters_fd = bpf_object__find_map_fd_by_name(l->obj, "gen_counters");
	probe = bpf_object__find_program_by_name(l->obj, "xdp_gen_probe");
	if (l->prog_fd < 0 || l->counters_fd < 0 || !probe) {
		ret = -ENOENT;
		snprintf(why, whylen, "the embedded BPF object lacks xdp_gen, xdp_gen_probe or gen_counters");
		goto fail;
	}
	ret = probe_live_frames(bpf_program__fd(probe));
	if (ret < 0) {
		snprintf(why, whylen, "BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES failed: %s%s",
			 strerror(-ret),
			 ret == -EINVAL || ret == -ENOTSUP || ret == -524 /* ENOTSUPP */ ?
			 " (live frames need Linux 5.18 or later)" : "");
		goto fail;
	}
	*lp = l;
	return 0;
fail:
	gen_live_close(l);
	return ret;
}

void
gen_live_close(struct gen_live *l)
{
	if (!l)
		return;
	bpf_object__close(l->obj);
	free(l);
}

int
gen_live_run(struct gen_live *l, int ifindex, const uint8_t *frame, unsigned int size,
	     uint32_t repeat, uint32_t batch, uint32_t *ns_per_frame)
{
	struct xdp_md ctx = {
		.data_end = size,
		.ingress_ifindex = ifindex,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = frame,
		.data_size_in = size,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.repeat = (int)repeat,
		.batch_size = batch,
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES);

	if (bpf_prog_test_run_opts(l->prog_fd, &opts) < 0)
		return -errno;
	*ns_per_frame = opts.duration;
	return 0;
}

int
gen_live_thread_built(struct gen_live *l, unsigned int thread, uint64_t *built)
{
	struct gen_counter c;
	uint32_t key = thread;

	if (bpf_map_lookup_elem(l->counters_fd, &key, &c) < 0)
		return -errno;
	*built = c.seq;
	return 0;
}

int
gen_live_built(struct gen_live *l, unsigned int n, uint64_t *total)
{
	*total = 0;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t built = 0;
		int ret = gen_live_thread_built(l, i, &built);

		if (ret < 0)
			return ret;
		*total += built;
	}
	return 0;
}
