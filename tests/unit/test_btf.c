/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The BTF look-ups of the direct-socket redirect and of the batched map
 * path, on BTF blobs built here: one with the names (as our patched kernel
 * has them), one without (as a stock kernel, where 181 is bpf_loop), and
 * the ways a blob can be wrong; and AF_XDP multi-buffer, by struct
 * xdp_sock's member sg. Each blob goes through its raw bytes and back, as
 * the kernel's would.
 */

#include <stdint.h>
#include <string.h>

#include <linux/bpf.h>

#include <bpf/btf.h>

#include "af_xdp_kernel.h"
#include "unit_test.h"

struct enumerator {
	const char *name;
	int64_t value;
};

static void
add_enum(struct btf *btf, const char *name, const struct enumerator *e, bool wide)
{
	int id = wide ? btf__add_enum64(btf, name, 8, false) : btf__add_enum(btf, name, 4);

	CHECK(id > 0, "add enum %s", name);
	for (; e->name != NULL; e++)
		CHECK((wide ? btf__add_enum64_value(btf, e->name, (uint64_t)e->value) :
		       btf__add_enum_value(btf, e->name, e->value)) == 0, "add %s", e->name);
}

static const struct enumerator stock_helpers[] = {
	{ "BPF_FUNC_unspec", 0 }, { "BPF_FUNC_map_lookup_elem", 1 },
	{ "BPF_FUNC_redirect_map", 51 }, { "BPF_FUNC_loop", 181 },
	{ "BPF_FUNC_user_ringbuf_drain", 209 }, { "__BPF_FUNC_MAX_ID", 212 }, { NULL, 0 },
};
static const struct enumerator patched_helpers[] = {
	{ "BPF_FUNC_unspec", 0 }, { "BPF_FUNC_redirect_map", 51 }, { "BPF_FUNC_loop", 181 },
	{ "BPF_FUNC_user_ringbuf_drain", 209 }, { "BPF_FUNC_cgrp_storage_get", 210 },
	{ "BPF_FUNC_cgrp_storage_delete", 211 }, { "BPF_FUNC_redirect_xsk", 212 },
	{ "__BPF_FUNC_MAX_ID", 213 }, { NULL, 0 },
};
static const struct enumerator stock_actions[] = {
	{ "XDP_ABORTED", 0 }, { "XDP_DROP", 1 }, { "XDP_PASS", 2 }, { "XDP_TX", 3 },
	{ "XDP_REDIRECT", 4 }, { NULL, 0 },
};
static const struct enumerator patched_actions[] = {
	{ "XDP_ABORTED", 0 }, { "XDP_DROP", 1 }, { "XDP_PASS", 2 }, { "XDP_TX", 3 },
	{ "XDP_REDIRECT", 4 }, { "XDP_REDIRECT_XSK", 5 }, { NULL, 0 },
};

/* Serialize and parse back: the look-up sees what a kernel would give. */
static struct btf *
round_trip(struct btf *built)
{
	uint32_t size = 0;
	const void *raw = btf__raw_data(built, &size);
	struct btf *parsed = raw != NULL ? btf__new(raw, size) : NULL;

	CHECK(parsed != NULL, "BTF blob does not parse back");
	btf__free(built);
	return parsed;
}

static int
lookup(const struct enumerator *helpers, const struct enumerator *actions, bool wide,
       struct af_xdp_kernel *k)
{
	struct btf *btf = btf__new_empty();
	int ret;

	CHECK(btf__add_int(btf, "int", 4, BTF_INT_SIGNED) > 0, "add int");
	if (helpers != NULL)
		add_enum(btf, "bpf_func_id", helpers, wide);
	if (actions != NULL)
		add_enum(btf, "xdp_action", actions, false);
	btf = round_trip(btf);
	memset(k, 0, sizeof(*k));
	ret = af_xdp_kernel_from_btf(btf, k);
	btf__free(btf);
	return ret;
}

static void
test_patched_kernel(void)
{
	struct af_xdp_kernel k;

	CHECK_EQ(lookup(patched_helpers, patched_actions, false, &k), 0);
	CHECK_EQ(k.redirect_xsk_helper, 212);
	CHECK_EQ(k.redirect_xsk_action, 5);
	/* The same as a 64-bit enum. */
	CHECK_EQ(lookup(patched_helpers, patched_actions, true, &k), 0);
	CHECK_EQ(k.redirect_xsk_helper, 212);
}

static void
test_stock_kernel(void)
{
	struct af_xdp_kernel k;

	CHECK(lookup(stock_helpers, stock_actions, false, &k) != 0, "stock kernel accepted");
	CHECK_EQ(k.redirect_xsk_helper, -1);
	CHECK_EQ(k.redirect_xsk_action, -1);
	CHECK(strstr(k.why, "BPF_FUNC_redirect_xsk is not in its BTF") != NULL, "why: %s", k.why);
	/* No enum at all. */
	CHECK(lookup(NULL, NULL, false, &k) != 0, "empty BTF accepted");
}

static void
test_inconsistent(void)
{
	static const struct enumerator elsewhere[] = {
		{ "BPF_FUNC_redirect_xsk", 7 }, { NULL, 0 },
	};
	static const struct enumerator bad_action[] = {
		{ "XDP_PASS", 2 }, { "XDP_REDIRECT", 4 }, { "XDP_REDIRECT_XSK", 3 }, { NULL, 0 },
	};
	struct btf *btf = btf__new_empty();
	struct af_xdp_kernel k;
	int64_t v;

	/* The helper without the action: not the design we know. */
	CHECK(lookup(patched_helpers, stock_actions, false, &k) != 0, "accepted without action");
	CHECK(strstr(k.why, "no XDP_REDIRECT_XSK") != NULL, "why: %s", k.why);
	/* An action value that collides with an existing one. */
	CHECK(lookup(patched_helpers, bad_action, false, &k) != 0, "accepted a colliding action");
	CHECK(strstr(k.why, "implausible") != NULL, "why: %s", k.why);
	/* The name in another enum does not count. */
	add_enum(btf, "some_other_enum", elsewhere, false);
	add_enum(btf, "bpf_func_id", stock_helpers, false);
	btf = round_trip(btf);
	CHECK(af_xdp_btf_enum_value(btf, "bpf_func_id", "BPF_FUNC_redirect_xsk", &v) != 0,
	      "found in the wrong enum");
	CHECK(af_xdp_btf_enum_value(btf, "bpf_func_id", "BPF_FUNC_loop", &v) == 0 && v == 181,
	      "BPF_FUNC_loop");
	btf__free(btf);
}

/* The helper's and the action's values, one pair at a time, in 64-bit enums. */
static int
lookup_values(int64_t helper, int64_t action)
{
	const struct enumerator helpers[] = {
		{ "BPF_FUNC_redirect_map", 51 }, { "BPF_FUNC_redirect_xsk", helper }, { NULL, 0 },
	};
	const struct enumerator actions[] = {
		{ "XDP_REDIRECT", 4 }, { "XDP_REDIRECT_XSK", action }, { NULL, 0 },
	};
	struct btf *btf = btf__new_empty();
	struct af_xdp_kernel k;
	int ret;

	add_enum(btf, "bpf_func_id", helpers, true);
	add_enum(btf, "xdp_action", actions, true);
	btf = round_trip(btf);
	memset(&k, 0, sizeof(k));
	ret = af_xdp_kernel_from_btf(btf, &k);
	btf__free(btf);
	if (ret == 0)
		CHECK(k.redirect_xsk_helper == helper && k.redirect_xsk_action == action,
		      "helper %d action %d", k.redirect_xsk_helper, k.redirect_xsk_action);
	else
		CHECK(strstr(k.why, "implausible") != NULL, "why: %s", k.why);
	return ret;
}

/* A helper number is 1..INT32_MAX; the action comes after XDP_REDIRECT, within INT32_MAX. */
static void
test_value_ranges(void)
{
	CHECK(lookup_values(0, 5) != 0, "helper 0 accepted");
	CHECK_EQ(lookup_values(1, 5), 0);
	CHECK_EQ(lookup_values(INT32_MAX, 5), 0);
	CHECK(lookup_values((int64_t)INT32_MAX + 1, 5) != 0, "helper INT32_MAX + 1 accepted");
	CHECK(lookup_values(-1, 5) != 0, "helper -1 accepted");
	CHECK(lookup_values(212, XDP_REDIRECT) != 0, "action XDP_REDIRECT accepted");
	CHECK_EQ(lookup_values(212, XDP_REDIRECT + 1), 0);
	CHECK_EQ(lookup_values(212, INT32_MAX), 0);
	CHECK(lookup_values(212, (int64_t)INT32_MAX + 1) != 0, "action INT32_MAX + 1 accepted");
}

/* A BTF with one type named @name: a function when @func, else a struct. */
static struct btf *
btf_with_name(const char *name, bool func)
{
	struct btf *btf = btf__new_empty();
	int int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);

	CHECK(int_id > 0, "add int");
	if (func) {
		int proto = btf__add_func_proto(btf, int_id);

		CHECK(proto > 0 && btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto) > 0,
		      "add function %s", name);
	} else {
		CHECK(btf__add_struct(btf, name, 4) > 0, "add struct %s", name);
	}
	return round_trip(btf);
}

static void
test_batched_map(void)
{
	struct af_xdp_kernel k;
	struct btf *btf;

	/* The kernel function the batched map path adds */
	btf = btf_with_name("xdp_do_redirect_xsk_batch", true);
	memset(&k, 0, sizeof(k));
	CHECK(af_xdp_kernel_batched_map_from_btf(btf, &k), "batched map path not found");
	CHECK(k.batched_map, "batched_map");
	CHECK(strstr(k.batch_why, "in batches") != NULL, "batch_why: %s", k.batch_why);
	btf__free(btf);

	/* A stock kernel: neither that function nor a flag */
	btf = btf_with_name("xdp_do_redirect", true);
	CHECK(!af_xdp_kernel_batched_map_from_btf(btf, &k), "stock kernel batched");
	CHECK(!k.batched_map, "batched_map on a stock kernel");
	CHECK(strstr(k.batch_why, "frame by frame") != NULL, "batch_why: %s", k.batch_why);
	btf__free(btf);

	/* The name as another kind of type does not count */
	btf = btf_with_name("xdp_do_redirect_xsk_batch", false);
	CHECK(!af_xdp_kernel_batched_map_from_btf(btf, &k), "a struct counted as the function");
	btf__free(btf);
}

/* A BTF with struct @name, of int members @members (NULL-terminated). */
static struct btf *
btf_with_struct(const char *name, const char * const *members)
{
	struct btf *btf = btf__new_empty();
	int int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	unsigned int n = 0;

	while (members[n] != NULL)
		n++;
	CHECK(int_id > 0 && btf__add_struct(btf, name, 4 * n) > 0, "add struct %s", name);
	for (n = 0; members[n] != NULL; n++)
		CHECK(btf__add_field(btf, members[n], int_id, 32 * n, 0) == 0, "add %s", members[n]);
	return round_trip(btf);
}

static void
test_multi_buffer(void)
{
	static const char * const with_sg[] = { "sk", "rx", "sg", "state", NULL };
	static const char * const without_sg[] = { "sk", "rx", "state", NULL };
	struct btf *btf;

	/* Linux 6.6+: struct xdp_sock has sg */
	btf = btf_with_struct("xdp_sock", with_sg);
	CHECK(af_xdp_kernel_multi_buffer_from_btf(btf), "xdp_sock.sg not found");
	btf__free(btf);
	/* Before 6.6: the struct without it */
	btf = btf_with_struct("xdp_sock", without_sg);
	CHECK(!af_xdp_kernel_multi_buffer_from_btf(btf), "multi-buffer without xdp_sock.sg");
	btf__free(btf);
	/* A member sg of another struct does not count */
	btf = btf_with_struct("xdp_umem", with_sg);
	CHECK(!af_xdp_kernel_multi_buffer_from_btf(btf), "xdp_umem.sg taken for xdp_sock.sg");
	btf__free(btf);
	/* Nor does xdp_sock as a function */
	btf = btf_with_name("xdp_sock", true);
	CHECK(!af_xdp_kernel_multi_buffer_from_btf(btf), "a function taken for the struct");
	btf__free(btf);
}

int
main(void)
{
	RUN(test_patched_kernel);
	RUN(test_stock_kernel);
	RUN(test_inconsistent);
	RUN(test_value_ranges);
	RUN(test_batched_map);
	RUN(test_multi_buffer);
	return unit_summary();
}
