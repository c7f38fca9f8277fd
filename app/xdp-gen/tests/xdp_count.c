/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * xdp-count: the integration tests' receiver.  Attaches xdp_count.bpf.c to
 * an interface (native mode: on a veth that also turns NAPI on, so that the
 * veth takes redirected frames), prints "ready", waits for SIGINT or
 * SIGTERM (or --timeout), then prints what it counted as one JSON line and
 * detaches.
 *
 *   xdp-count --dev IFACE [--pass] [--timeout SECONDS]
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "xdp_count.h"

extern const unsigned char xdp_count_bpf_obj[];
extern const size_t xdp_count_bpf_obj_len;

/* Entries up to the last that counted a frame. */
static unsigned int
used(const __u64 *frames, unsigned int n)
{
	unsigned int last = 0;

	for (unsigned int i = 0; i < n; i++)
		if (frames[i])
			last = i + 1;
	return last;
}

static void
print_array(const char *name, const __u64 *v, unsigned int n)
{
	printf(",\"%s\":[", name);
	for (unsigned int i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
	printf("]");
}

static int
read_stats(int map_fd, struct count_stats *tot)
{
	int ncpu = libbpf_num_possible_cpus();
	struct count_stats *per_cpu;
	__u32 key = 0;

	if (ncpu < 0)
		return ncpu;
	per_cpu = calloc((size_t)ncpu, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &key, per_cpu) < 0) {
		free(per_cpu);
		return -errno;
	}
	memset(tot, 0, sizeof(*tot));
	for (int c = 0; c < ncpu; c++) {
		const struct count_stats *s = &per_cpu[c];

		tot->frames += s->frames;
		tot->bytes += s->bytes;
		tot->ours += s->ours;
		tot->others += s->others;
		tot->bad_csum += s->bad_csum;
		tot->bad_len += s->bad_len;
		for (int i = 0; i < COUNT_MAX_QUEUES; i++)
			tot->queue[i] += s->queue[i];
		for (int i = 0; i < COUNT_MAX_FLOWS; i++)
			tot->flow[i] += s->flow[i];
		for (int i = 0; i < GEN_MAX_THREADS; i++) {
			tot->thr_frames[i] += s->thr_frames[i];
			tot->thr_seq_sum[i] += s->thr_seq_sum[i];
			if (s->thr_seq_end[i] > tot->thr_seq_end[i])
				tot->thr_seq_end[i] = s->thr_seq_end[i];
		}
	}
	free(per_cpu);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "pass", no_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .object_name = "xdp_count");
	const char *dev = NULL;
	__u32 verdict = XDP_DROP;
	struct timespec timeout = { 600, 0 };
	struct bpf_object *obj;
	struct bpf_map *map, *rodata = NULL;
	struct count_stats st;
	sigset_t set;
	int c, ifindex, prog_fd, ret;
	unsigned int threads;

	while ((c = getopt_long(argc, argv, "d:pt:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'p':
			verdict = XDP_PASS;
			break;
		case 't':
			timeout.tv_sec = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: xdp-count --dev IFACE [--pass] [--timeout SECONDS]\n");
			return 2;
		}
	}
	if (!dev) {
		fprintf(stderr, "xdp-count: --dev IFACE is required\n");
		return 2;
	}
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex) {
		fprintf(stderr, "xdp-count: no interface %s\n", dev);
		return 2;
	}

	obj = bpf_object__open_mem(xdp_count_bpf_obj, xdp_count_bpf_obj_len, &open_opts);
	if (!obj) {
		fprintf(stderr, "xdp-count: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);

		if (strlen(name) > 7 && strcmp(name + strlen(name) - 7, ".rodata") == 0)
			rodata = map;
	}
	if (!rodata || bpf_map__set_initial_value(rodata, &verdict, sizeof(verdict)) < 0 ||
	    bpf_object__load(obj) < 0) {
		fprintf(stderr, "xdp-count: cannot load the program\n");
		return 1;
	}
	prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "xdp_count"));
	ret = bpf_xdp_attach(ifindex, prog_fd, XDP_FLAGS_DRV_MODE, NULL);
	if (ret < 0) {
		fprintf(stderr, "xdp-count: cannot attach to %s: %s\n", dev, strerror(-ret));
		return 1;
	}

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	if (sigtimedwait(&set, NULL, &timeout) < 0)
		fprintf(stderr, "xdp-count: no signal within %ld s\n", (long)timeout.tv_sec);

	ret = read_stats(bpf_object__find_map_fd_by_name(obj, "count_stats"), &st);
	bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, NULL);
	if (ret < 0) {
		fprintf(stderr, "xdp-count: cannot read the counters: %s\n", strerror(-ret));
		return 1;
	}
	printf("{\"frames\":%llu,\"bytes\":%llu,\"ours\":%llu,\"others\":%llu,\"bad_csum\":%llu,"
	       "\"bad_len\":%llu", (unsigned long long)st.frames, (unsigned long long)st.bytes,
	       (unsigned long long)st.ours, (unsigned long long)st.others,
	       (unsigned long long)st.bad_csum, (unsigned long long)st.bad_len);
	print_array("queue", st.queue, used(st.queue, COUNT_MAX_QUEUES));
	print_array("flow", st.flow, used(st.flow, COUNT_MAX_FLOWS));
	threads = used(st.thr_frames, GEN_MAX_THREADS);
	print_array("thr_frames", st.thr_frames, threads);
	print_array("thr_seq_sum", st.thr_seq_sum, threads);
	print_array("thr_seq_end", st.thr_seq_end, threads);
	printf("}\n");
	bpf_object__close(obj);
	return 0;
}
