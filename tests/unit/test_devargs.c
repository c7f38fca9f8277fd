/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Every devarg and every error path of af_xdp_devargs_parse(): each error
 * must name the key (or value) that was wrong.  No EAL, no kernel.
 */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "af_xdp_devargs.h"
#include "unit_test.h"

static struct af_xdp_devargs da;
static char err[1024];

static int
parse(const char *args)
{
	return af_xdp_devargs_parse(args, &da, err, sizeof(err));
}

/* The string fails to parse and the message contains every needle. */
static void
expect_error(const char *args, const char *needle1, const char *needle2)
{
	int ret = parse(args);

	CHECK(ret != 0, "'%s' was accepted", args);
	CHECK(strstr(err, needle1) != NULL, "'%s': message '%s' lacks '%s'", args, err, needle1);
	if (needle2 != NULL)
		CHECK(strstr(err, needle2) != NULL, "'%s': message '%s' lacks '%s'", args, err,
		      needle2);
}

static void
expect_ok(const char *args)
{
	int ret = parse(args);

	CHECK(ret == 0, "'%s' refused: %s", args, err);
}

static void
test_defaults(void)
{
	expect_ok("iface=eth0");
	CHECK(strcmp(da.iface, "eth0") == 0, "iface %s", da.iface);
	CHECK_EQ(da.start_queue, 0);
	CHECK_EQ(da.queue_count, 1);
	CHECK_EQ(da.shared_umem, 0);
	CHECK(da.xdp_prog[0] == '\0', "xdp_prog %s", da.xdp_prog);
	CHECK_EQ(da.busy_budget, AF_XDP_DEFAULT_BUSY_BUDGET);
	CHECK_EQ(da.busy_budget_given, 0);
	CHECK_EQ(da.force_copy, 0);
	CHECK_EQ(da.use_cni, 0);
	CHECK_EQ(da.use_pinned_map, 0);
	CHECK(da.dp_path[0] == '\0', "dp_path %s", da.dp_path);
	CHECK_EQ(da.mode, AF_XDP_ATTACH_AUTO);
	CHECK_EQ(da.redirect, AF_XDP_REDIRECT_AUTO);
	CHECK_EQ(da.redirect_given, 0);
	CHECK_EQ(da.tx_csum, AF_XDP_TX_CSUM_AUTO);
	CHECK_EQ(da.tx_budget, AF_XDP_TX_BUDGET_AUTO);
}

static void
test_every_key(void)
{
	expect_ok("iface=veth1,start_queue=3,queue_count=4,shared_umem=1,busy_budget=0,force_copy=1,mode=skb");
	CHECK_EQ(da.start_queue, 3);
	CHECK_EQ(da.queue_count, 4);
	CHECK_EQ(da.shared_umem, 1);
	CHECK_EQ(da.busy_budget, 0);
	CHECK_EQ(da.busy_budget_given, 1);
	CHECK_EQ(da.force_copy, 1);
	CHECK_EQ(da.mode, AF_XDP_ATTACH_SKB);
	expect_ok("iface=a,mode=drv");
	CHECK_EQ(da.mode, AF_XDP_ATTACH_DRV);
	expect_ok("iface=a,mode=hw");
	CHECK_EQ(da.mode, AF_XDP_ATTACH_HW);
	expect_ok("iface=a,busy_budget=65535");
	CHECK_EQ(da.busy_budget, 65535);
	expect_ok("iface=a,start_queue=65535");
	CHECK_EQ(da.start_queue, 65535);
	expect_ok("iface=a,queue_count=1024");
	CHECK_EQ(da.queue_count, 1024);
	expect_ok("iface=a,use_cni=1");
	CHECK_EQ(da.use_cni, 1);
	CHECK(strcmp(da.dp_path, "/tmp/afxdp_dp/a/afxdp.sock") == 0, "dp_path %s", da.dp_path);
	CHECK_EQ(da.busy_budget, 0);
	expect_ok("iface=a,use_pinned_map=1");
	CHECK(strcmp(da.dp_path, "/tmp/afxdp_dp/a/xsks_map") == 0, "dp_path %s", da.dp_path);
	expect_ok("iface=a,use_pinned_map=1,dp_path=/sys/fs/bpf/m");
	CHECK(strcmp(da.dp_path, "/sys/fs/bpf/m") == 0, "dp_path %s", da.dp_path);
	expect_ok("iface=a,use_cni=1,dp_path=/run/x.sock,busy_budget=0");
	expect_ok("iface=a,shared_umem=0,force_copy=0,use_cni=0,use_pinned_map=0");
	expect_ok("iface=a,redirect=direct");
	CHECK_EQ(da.redirect, AF_XDP_REDIRECT_DIRECT);
	CHECK_EQ(da.redirect_given, 1);
	expect_ok("iface=a,redirect=map");
	CHECK_EQ(da.redirect, AF_XDP_REDIRECT_MAP);
	expect_ok("iface=a,redirect=auto");
	CHECK_EQ(da.redirect, AF_XDP_REDIRECT_AUTO);
	CHECK_EQ(da.redirect_given, 1);
	expect_ok("iface=a,tx_csum=sw");
	CHECK_EQ(da.tx_csum, AF_XDP_TX_CSUM_SW);
	expect_ok("iface=a,tx_csum=auto");
	CHECK_EQ(da.tx_csum, AF_XDP_TX_CSUM_AUTO);
	expect_ok("iface=a,tx_budget=kernel");
	CHECK_EQ(da.tx_budget, AF_XDP_TX_BUDGET_KERNEL);
	expect_ok("iface=a,tx_budget=auto");
	CHECK_EQ(da.tx_budget, AF_XDP_TX_BUDGET_AUTO);
}

static void
test_xdp_prog(void)
{
	char path[] = "/tmp/af_xdp_devargs_XXXXXX";
	char args[256];
	int fd = mkstemp(path);

	CHECK(fd >= 0, "mkstemp");
	close(fd);
	snprintf(args, sizeof(args), "iface=a,xdp_prog=%s", path);
	expect_ok(args);
	CHECK(strcmp(da.xdp_prog, path) == 0, "xdp_prog %s", da.xdp_prog);
	unlink(path);
	expect_error(args, "xdp_prog", path);
	expect_error("iface=a,xdp_prog=/nonexistent.o", "/nonexistent.o", "No such file");
	expect_error("iface=a,xdp_prog=/tmp", "/tmp", "not a regular file");
	expect_error("iface=a,xdp_prog=", "xdp_prog", "needs a value");
}

static void
test_missing_and_malformed(void)
{
	expect_error(NULL, "missing iface", NULL);
	expect_error("", "missing iface", NULL);
	expect_error("start_queue=1", "missing iface", NULL);
	expect_error("iface=", "iface", "needs a value");
	expect_error("iface=abcdefghijklmnopq", "iface", "abcdefghijklmnopq");
	expect_error("iface=a/b", "iface", "a/b");
	expect_error("iface=a,foo=1", "foo", "valid ones are");
	expect_error("iface=a,Iface=b", "Iface", NULL);
	expect_error("iface=a,iface=b", "iface", "more than once");
}

static void
test_numbers(void)
{
	expect_error("iface=a,queue_count=0", "queue_count", "out of range");
	expect_error("iface=a,queue_count=1025", "queue_count", "1025");
	expect_error("iface=a,queue_count=-1", "queue_count", "-1");
	expect_error("iface=a,queue_count=2x", "queue_count", "2x");
	expect_error("iface=a,queue_count=", "queue_count", "needs a value");
	expect_error("iface=a,queue_count= 2", "queue_count", NULL);
	expect_error("iface=a,start_queue=65536", "start_queue", "65536");
	expect_error("iface=a,start_queue=99999999999999999999", "start_queue", NULL);
	expect_error("iface=a,start_queue=abc", "start_queue", "abc");
	expect_error("iface=a,busy_budget=-1", "busy_budget", "-1");
	expect_error("iface=a,busy_budget=65536", "busy_budget", "65536");
	expect_error("iface=a,busy_budget=1.5", "busy_budget", "1.5");
}

static void
test_booleans_and_mode(void)
{
	expect_error("iface=a,shared_umem=2", "shared_umem", "0 or 1");
	expect_error("iface=a,force_copy=yes", "force_copy", "yes");
	expect_error("iface=a,use_cni=true", "use_cni", "true");
	expect_error("iface=a,use_pinned_map=", "use_pinned_map", NULL);
	expect_error("iface=a,mode=bogus", "mode", "bogus");
	expect_error("iface=a,mode=auto", "mode", "auto");
	expect_error("iface=a,mode=", "mode", NULL);
	expect_error("iface=a,redirect=xsk", "redirect", "xsk");
	expect_error("iface=a,redirect=", "redirect", NULL);
	expect_error("iface=a,tx_csum=hw", "tx_csum", "hw");
	expect_error("iface=a,tx_csum=", "tx_csum", NULL);
	expect_error("iface=a,tx_budget=64", "tx_budget", "64");
	expect_error("iface=a,tx_budget=", "tx_budget", NULL);
}

/* expect_error() with the path of a readable regular file written into args_fmt. */
static void
expect_error_with_file(const char *args_fmt, const char *needle1, const char *needle2)
{
	char path[] = "/tmp/af_xdp_devargs_XXXXXX";
	char args[256];
	int fd = mkstemp(path);

	CHECK(fd >= 0, "mkstemp");
	close(fd);
	snprintf(args, sizeof(args), args_fmt, path);
	expect_error(args, needle1, needle2);
	unlink(path);
}

static void
test_conflicts(void)
{
	expect_error("iface=a,use_cni=1,use_pinned_map=1", "use_cni", "use_pinned_map");
	expect_error_with_file("iface=a,use_cni=1,xdp_prog=%s", "xdp_prog", "use_cni");
	expect_error_with_file("iface=a,use_pinned_map=1,xdp_prog=%s", "xdp_prog",
			       "use_pinned_map");
	expect_error("iface=a,use_cni=1,busy_budget=32", "busy_budget", "use_cni");
	expect_error("iface=a,use_pinned_map=1,mode=skb", "mode", "use_pinned_map");
	expect_error("iface=a,dp_path=/x", "dp_path", "use_cni");
	expect_error("iface=a,use_cni=1,redirect=map", "redirect", "use_cni");
	expect_error("iface=a,use_pinned_map=1,redirect=direct", "redirect", "use_pinned_map");
	expect_error_with_file("iface=a,xdp_prog=%s,redirect=auto", "redirect", "xdp_prog");
	expect_error("iface=a,use_cni=1,dp_path=", "dp_path", "needs a value");
}

int
main(void)
{
	RUN(test_defaults);
	RUN(test_every_key);
	RUN(test_xdp_prog);
	RUN(test_missing_and_malformed);
	RUN(test_numbers);
	RUN(test_booleans_and_mode);
	RUN(test_conflicts);
	return unit_summary();
}
