/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * bench-xdp: attach the benchmark's kernel fast-path programs
 * (xdp_bench.bpf.c, built with the project and embedded here) to an
 * interface, and take them off again.
 *
 *   bench-xdp attach DEV drop
 *   bench-xdp attach DEV redirect TO_DEV
 *   bench-xdp detach DEV
 *   options: --mode drv|skb (default drv: native XDP, which veth has)
 *
 * The program stays attached when bench-xdp exits (the interface holds it),
 * until `detach` or the interface goes away.  attach refuses to replace a
 * program already there; detach takes off only one of ours (bench_*), so
 * neither can disturb someone else's XDP program.
 *
 * Exit status: 0 done, 1 failed (the reason on stderr), 2 bad usage.
 */

#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

extern const unsigned char xdp_bench_bpf_obj[];
extern const size_t xdp_bench_bpf_obj_len;

#define OUR_PREFIX "bench_"

static const char usage[] =
	"usage: bench-xdp [--mode drv|skb] attach DEV drop\n"
	"       bench-xdp [--mode drv|skb] attach DEV redirect TO_DEV\n"
	"       bench-xdp [--mode drv|skb] detach DEV\n";

static int
libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int
ifindex_of(const char *dev)
{
	unsigned int ifindex = if_nametoindex(dev);

	if (ifindex == 0)
		fprintf(stderr, "bench-xdp: no interface %s in this network namespace\n", dev);
	return (int)ifindex;
}

static const char *
mode_name(__u32 mode_flag)
{
	return mode_flag == XDP_FLAGS_SKB_MODE ? "generic (skb)" : "native (drv)";
}

static int
attach(const char *dev, const char *what, const char *to_dev, __u32 mode_flag)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .object_name = "xdp_bench");
	const char *prog_name = strcmp(what, "drop") == 0 ? "bench_drop" : "bench_redirect";
	struct bpf_object *obj;
	struct bpf_program *prog, *p;
	struct bpf_prog_info info;
	__u32 info_len = sizeof(info);
	int ifindex, to_ifindex = 0, prog_fd, ret;

	ifindex = ifindex_of(dev);
	if (ifindex == 0)
		return 1;
	if (to_dev) {
		to_ifindex = ifindex_of(to_dev);
		if (to_ifindex == 0)
			return 1;
	}
	obj = bpf_object__open_mem(xdp_bench_bpf_obj, xdp_bench_bpf_obj_len, &open_opts);
	if (!obj) {
		fprintf(stderr, "bench-xdp: cannot open the embedded BPF object: %s\n", strerror(errno));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, prog_name);
	if (!prog) {
		fprintf(stderr, "bench-xdp: the embedded BPF object has no %s\n", prog_name);
		goto fail;
	}
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, p == prog);
	ret = bpf_object__load(obj);
	if (ret < 0) {
		fprintf(stderr, "bench-xdp: cannot load %s: %s%s\n", prog_name, strerror(-ret),
			ret == -EPERM ? " (needs root, or CAP_BPF and CAP_NET_ADMIN)" : "");
		goto fail;
	}
	prog_fd = bpf_program__fd(prog);
	if (to_dev) {
		__u32 key = 0, value = (__u32)to_ifindex;
		int map_fd = bpf_object__find_map_fd_by_name(obj, "tx_port");

		if (map_fd < 0 || bpf_map_update_elem(map_fd, &key, &value, BPF_ANY) < 0) {
			fprintf(stderr, "bench-xdp: cannot put %s (ifindex %d) in the DEVMAP: %s%s\n",
				to_dev, to_ifindex, strerror(errno),
				errno == EINVAL || errno == EOPNOTSUPP ?
				" (the target must support XDP redirect: ndo_xdp_xmit)" : "");
			goto fail;
		}
	}
	ret = bpf_xdp_attach(ifindex, prog_fd, XDP_FLAGS_UPDATE_IF_NOEXIST | mode_flag, NULL);
	if (ret < 0) {
		fprintf(stderr, "bench-xdp: cannot attach %s to %s in %s mode: %s%s\n", prog_name, dev,
			mode_name(mode_flag), strerror(-ret),
			ret == -EBUSY || ret == -EEXIST ?
			" (another XDP program is attached: it is left alone)" : "");
		goto fail;
	}
	memset(&info, 0, sizeof(info));
	bpf_obj_get_info_by_fd(prog_fd, &info, &info_len);
	if (to_dev)
		printf("bench-xdp: %s (id %u) attached to %s (ifindex %d) in %s mode, redirecting to %s (ifindex %d)\n",
		       prog_name, info.id, dev, ifindex, mode_name(mode_flag), to_dev, to_ifindex);
	else
		printf("bench-xdp: %s (id %u) attached to %s (ifindex %d) in %s mode\n",
		       prog_name, info.id, dev, ifindex, mode_name(mode_flag));
	/* The attachment keeps the program (and its DEVMAP) alive. */
	bpf_object__close(obj);
	return 0;
fail:
	bpf_object__close(obj);
	return 1;
}

static int
detach(const char *dev, __u32 mode_flag)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	struct bpf_prog_info info;
	__u32 info_len = sizeof(info);
	__u32 id = 0;
	int ifindex, fd, ret;

	ifindex = ifindex_of(dev);
	if (ifindex == 0)
		return 1;
	ret = bpf_xdp_query_id(ifindex, mode_flag, &id);
	if (ret < 0) {
		fprintf(stderr, "bench-xdp: cannot query %s: %s\n", dev, strerror(-ret));
		return 1;
	}
	if (id == 0) {
		printf("bench-xdp: no XDP program on %s in %s mode\n", dev, mode_name(mode_flag));
		return 0;
	}
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		fprintf(stderr, "bench-xdp: cannot open program id %u on %s: %s\n", id, dev, strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0 ||
	    strncmp(info.name, OUR_PREFIX, strlen(OUR_PREFIX)) != 0) {
		fprintf(stderr, "bench-xdp: the program on %s (id %u, %s) is not ours: left alone\n",
			dev, id, info.name[0] ? info.name : "name unknown");
		close(fd);
		return 1;
	}
	/* Only if it is still that program (XDP_FLAGS_REPLACE). */
	opts.old_prog_fd = fd;
	ret = bpf_xdp_detach(ifindex, mode_flag, &opts);
	close(fd);
	if (ret < 0) {
		fprintf(stderr, "bench-xdp: cannot detach %s (id %u) from %s: %s\n", info.name, id, dev,
			strerror(-ret));
		return 1;
	}
	printf("bench-xdp: %s (id %u) detached from %s\n", info.name, id, dev);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	__u32 mode_flag = XDP_FLAGS_DRV_MODE;
	int c, n;

	while ((c = getopt_long(argc, argv, "m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (strcmp(optarg, "drv") == 0) {
				mode_flag = XDP_FLAGS_DRV_MODE;
			} else if (strcmp(optarg, "skb") == 0) {
				mode_flag = XDP_FLAGS_SKB_MODE;
			} else {
				fprintf(stderr, "bench-xdp: --mode %s: expected drv or skb\n", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	n = argc - optind;
	argv += optind;
	libbpf_set_print(libbpf_quiet);
	if (n == 3 && strcmp(argv[0], "attach") == 0 && strcmp(argv[2], "drop") == 0)
		return attach(argv[1], "drop", NULL, mode_flag);
	if (n == 4 && strcmp(argv[0], "attach") == 0 && strcmp(argv[2], "redirect") == 0)
		return attach(argv[1], "redirect", argv[3], mode_flag);
	if (n == 2 && strcmp(argv[0], "detach") == 0)
		return detach(argv[1], mode_flag);
	fputs(usage, stderr);
	return 2;
}
