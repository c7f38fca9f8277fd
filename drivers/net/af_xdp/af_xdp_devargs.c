/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rte_common.h>
#include <rte_kvargs.h>
#include <rte_string_fns.h>

#include "af_xdp_devargs.h"

/* Highest queue_count accepted: ethdev cannot have more queues than this. */
#define AF_XDP_MAX_QUEUE_COUNT RTE_MAX_QUEUES_PER_PORT

typedef int (*arg_parser_t)(const char *key, const char *value,
			    struct af_xdp_devargs *da, char *err, size_t len);

static int __rte_format_printf(3, 4)
fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Strict decimal: digits only, no sign, no trailing garbage, within [min, max]. */
static int
parse_uint(const char *key, const char *value, uint32_t min, uint32_t max,
	   uint32_t *out, char *err, size_t len)
{
	unsigned long long v = 0;
	const char *p;

	if (*value == '\0')
		return fail(err, len, "%s needs a value: %s=<integer from %u to %u>",
			    key, key, min, max);
	for (p = value; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return fail(err, len,
				    "invalid %s '%s': expected an integer from %u to %u",
				    key, value, min, max);
		v = v * 10 + (unsigned int)(*p - '0');
		if (v > max)
			break;
	}
	if (v < min || v > max)
		return fail(err, len, "%s=%s is out of range: expected an integer from %u to %u",
			    key, value, min, max);
	*out = (uint32_t)v;
	return 0;
}

static int
parse_bool(const char *key, const char *value, bool *out, char *err, size_t len)
{
	if (strcmp(value, "0") == 0 || strcmp(value, "1") == 0) {
		*out = value[0] == '1';
		return 0;
	}
	return fail(err, len, "invalid %s '%s': expected 0 or 1", key, value);
}

static int
parse_path(const char *key, const char *value, char *out, char *err, size_t len)
{
	if (*value == '\0')
		return fail(err, len, "%s needs a value: %s=<path>", key, key);
	if (strlen(value) >= PATH_MAX)
		return fail(err, len, "%s is too long: at most %d characters", key, PATH_MAX - 1);
	strlcpy(out, value, PATH_MAX);
	return 0;
}

static int
arg_iface(const char *key, const char *value, struct af_xdp_devargs *da,
	  char *err, size_t len)
{
	if (*value == '\0')
		return fail(err, len, "%s needs a value: %s=<kernel interface name>", key, key);
	if (strlen(value) >= IFNAMSIZ)
		return fail(err, len, "invalid %s '%s': interface names have at most %d characters",
			    key, value, IFNAMSIZ - 1);
	if (strchr(value, '/') != NULL || strchr(value, ' ') != NULL)
		return fail(err, len, "invalid %s '%s': not a valid interface name", key, value);
	strlcpy(da->iface, value, sizeof(da->iface));
	return 0;
}

static int
arg_start_queue(const char *key, const char *value, struct af_xdp_devargs *da,
		char *err, size_t len)
{
	return parse_uint(key, value, 0, UINT16_MAX, &da->start_queue, err, len);
}

static int
arg_queue_count(const char *key, const char *value, struct af_xdp_devargs *da,
		char *err, size_t len)
{
	return parse_uint(key, value, 1, AF_XDP_MAX_QUEUE_COUNT, &da->queue_count, err, len);
}

static int
arg_shared_umem(const char *key, const char *value, struct af_xdp_devargs *da,
		char *err, size_t len)
{
	return parse_bool(key, value, &da->shared_umem, err, len);
}

static int
arg_xdp_prog(const char *key, const char *value, struct af_xdp_devargs *da,
	     char *err, size_t len)
{
	struct stat st;
	int ret;

	ret = parse_path(key, value, da->xdp_prog, err, len);
	if (ret != 0)
		return ret;
	if (stat(value, &st) != 0)
		return fail(err, len, "%s=%s: %s; give the path of a compiled XDP object file",
			    key, value, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(err, len, "%s=%s is not a regular file; give the path of a compiled XDP object file",
			    key, value);
	if (access(value, R_OK) != 0)
		return fail(err, len, "%s=%s is not readable: %s", key, value, strerror(errno));
	return 0;
}

static int
arg_busy_budget(const char *key, const char *value, struct af_xdp_devargs *da,
		char *err, size_t len)
{
	da->busy_budget_given = true;
	return parse_uint(key, value, 0, UINT16_MAX, &da->busy_budget, err, len);
}

static int
arg_force_copy(const char *key, const char *value, struct af_xdp_devargs *da,
	       char *err, size_t len)
{
	return parse_bool(key, value, &da->force_copy, err, len);
}

static int
arg_use_cni(const char *key, const char *value, struct af_xdp_devargs *da,
	    char *err, size_t len)
{
	return parse_bool(key, value, &da->use_cni, err, len);
}

static int
arg_use_pinned_map(const char *key, const char *value, struct af_xdp_devargs *da,
		   char *err, size_t len)
{
	return parse_bool(key, value, &da->use_pinned_map, err, len);
}

static int
arg_dp_path(const char *key, const char *value, struct af_xdp_devargs *da,
	    char *err, size_t len)
{
	return parse_path(key, value, da->dp_path, err, len);
}

/* The index of value among names[from..n), or -1: the devargs that take a word. */
static int
name_index(const char *value, const char * const names[], unsigned int from, unsigned int n)
{
	unsigned int i;

	for (i = from; i < n; i++)
		if (strcmp(value, names[i]) == 0)
			return (int)i;
	return -1;
}

static const char * const attach_mode_names[] = {
	[AF_XDP_ATTACH_AUTO] = "auto",
	[AF_XDP_ATTACH_DRV] = "drv",
	[AF_XDP_ATTACH_SKB] = "skb",
	[AF_XDP_ATTACH_HW] = "hw",
};

const char *
af_xdp_attach_mode_name(enum af_xdp_attach_mode mode)
{
	if ((unsigned int)mode >= RTE_DIM(attach_mode_names))
		return "?";
	return attach_mode_names[mode];
}

static int
arg_mode(const char *key, const char *value, struct af_xdp_devargs *da,
	 char *err, size_t len)
{
	/* "auto" is the default and is not a value users can write. */
	int i = name_index(value, attach_mode_names, AF_XDP_ATTACH_DRV, RTE_DIM(attach_mode_names));

	if (i >= 0) {
		da->mode = (enum af_xdp_attach_mode)i;
		return 0;
	}
	return fail(err, len, "invalid %s '%s': expected drv (native XDP), skb (generic XDP) or hw (offload)",
		    key, value);
}

static const char * const redirect_names[] = {
	[AF_XDP_REDIRECT_AUTO] = "auto",
	[AF_XDP_REDIRECT_DIRECT] = "direct",
	[AF_XDP_REDIRECT_MAP] = "map",
};

static int
arg_redirect(const char *key, const char *value, struct af_xdp_devargs *da,
	     char *err, size_t len)
{
	int i = name_index(value, redirect_names, 0, RTE_DIM(redirect_names));

	if (i >= 0) {
		da->redirect = (enum af_xdp_redirect)i;
		da->redirect_given = true;
		return 0;
	}
	return fail(err, len,
		    "invalid %s '%s': expected auto (map where the kernel batches it, else direct where the kernel has it, else map), direct (bpf_redirect_xsk, patched kernel) or map (bpf_redirect_map)",
		    key, value);
}

static const char * const tx_csum_names[] = {
	[AF_XDP_TX_CSUM_AUTO] = "auto",
	[AF_XDP_TX_CSUM_SW] = "sw",
};

static int
arg_tx_csum(const char *key, const char *value, struct af_xdp_devargs *da,
	    char *err, size_t len)
{
	int i = name_index(value, tx_csum_names, 0, RTE_DIM(tx_csum_names));

	if (i >= 0) {
		da->tx_csum = (enum af_xdp_tx_csum)i;
		return 0;
	}
	return fail(err, len,
		    "invalid %s '%s': expected auto (L4 checksums completed by the kernel where it takes AF_XDP Tx metadata) or sw (computed by the driver)",
		    key, value);
}

static const char * const tx_budget_names[] = {
	[AF_XDP_TX_BUDGET_AUTO] = "auto",
	[AF_XDP_TX_BUDGET_KERNEL] = "kernel",
};

static int
arg_tx_budget(const char *key, const char *value, struct af_xdp_devargs *da,
	      char *err, size_t len)
{
	int i = name_index(value, tx_budget_names, 0, RTE_DIM(tx_budget_names));

	if (i >= 0) {
		da->tx_budget = (enum af_xdp_tx_budget)i;
		return 0;
	}
	return fail(err, len,
		    "invalid %s '%s': expected auto (copy mode sends the whole Tx ring per sendto() where the kernel allows it, Linux 6.17+) or kernel (the kernel's default, 32)",
		    key, value);
}

static const struct {
	const char *key;
	arg_parser_t parse;
} arg_table[] = {
	{ AF_XDP_ARG_IFACE, arg_iface },
	{ AF_XDP_ARG_START_QUEUE, arg_start_queue },
	{ AF_XDP_ARG_QUEUE_COUNT, arg_queue_count },
	{ AF_XDP_ARG_SHARED_UMEM, arg_shared_umem },
	{ AF_XDP_ARG_XDP_PROG, arg_xdp_prog },
	{ AF_XDP_ARG_BUSY_BUDGET, arg_busy_budget },
	{ AF_XDP_ARG_FORCE_COPY, arg_force_copy },
	{ AF_XDP_ARG_USE_CNI, arg_use_cni },
	{ AF_XDP_ARG_USE_PINNED_MAP, arg_use_pinned_map },
	{ AF_XDP_ARG_DP_PATH, arg_dp_path },
	{ AF_XDP_ARG_MODE, arg_mode },
	{ AF_XDP_ARG_REDIRECT, arg_redirect },
	{ AF_XDP_ARG_TX_CSUM, arg_tx_csum },
	{ AF_XDP_ARG_TX_BUDGET, arg_tx_budget },
};

static arg_parser_t
find_parser(const char *key)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(arg_table); i++)
		if (strcmp(key, arg_table[i].key) == 0)
			return arg_table[i].parse;
	return NULL;
}

static void
list_keys(char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < RTE_DIM(arg_table) && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", arg_table[i].key);
}

static void
set_defaults(struct af_xdp_devargs *da)
{
	memset(da, 0, sizeof(*da));
	da->queue_count = 1;
	da->busy_budget = AF_XDP_DEFAULT_BUSY_BUDGET;
	da->mode = AF_XDP_ATTACH_AUTO;
	da->redirect = AF_XDP_REDIRECT_AUTO;
	da->tx_csum = AF_XDP_TX_CSUM_AUTO;
	da->tx_budget = AF_XDP_TX_BUDGET_AUTO;
}

/* Rules between arguments, once each one is valid on its own. */
static int
check_combinations(struct af_xdp_devargs *da, char *err, size_t len)
{
	bool external_prog = da->use_cni || da->use_pinned_map;
	const char *who = da->use_cni ? AF_XDP_ARG_USE_CNI : AF_XDP_ARG_USE_PINNED_MAP;

	if (da->iface[0] == '\0')
		return fail(err, len, "missing %s: give the kernel interface to attach to, e.g. --vdev net_af_xdp0,%s=eth0",
			    AF_XDP_ARG_IFACE, AF_XDP_ARG_IFACE);
	if (da->use_cni && da->use_pinned_map)
		return fail(err, len, "%s and %s are exclusive: the XSKMAP comes either from the device plugin's socket or from a pinned map",
			    AF_XDP_ARG_USE_CNI, AF_XDP_ARG_USE_PINNED_MAP);
	if (external_prog && da->xdp_prog[0] != '\0')
		return fail(err, len, "%s cannot be combined with %s: the XDP program is loaded by someone else",
			    AF_XDP_ARG_XDP_PROG, who);
	if (da->redirect_given && (external_prog || da->xdp_prog[0] != '\0'))
		return fail(err, len, "%s chooses how the built-in XDP program redirects; with %s the program is not ours: drop %s",
			    AF_XDP_ARG_REDIRECT, da->xdp_prog[0] != '\0' ? AF_XDP_ARG_XDP_PROG : who,
			    AF_XDP_ARG_REDIRECT);
	if (external_prog && da->mode != AF_XDP_ATTACH_AUTO)
		return fail(err, len, "%s cannot be combined with %s: the XDP program is attached by someone else",
			    AF_XDP_ARG_MODE, who);
	if (da->use_cni && da->busy_budget_given && da->busy_budget != 0)
		return fail(err, len, "%s cannot be combined with %s: busy polling is configured by the device plugin; drop %s",
			    AF_XDP_ARG_BUSY_BUDGET, AF_XDP_ARG_USE_CNI, AF_XDP_ARG_BUSY_BUDGET);
	if (da->dp_path[0] != '\0' && !external_prog)
		return fail(err, len, "%s is only meaningful with %s=1 or %s=1",
			    AF_XDP_ARG_DP_PATH, AF_XDP_ARG_USE_CNI, AF_XDP_ARG_USE_PINNED_MAP);
	if (da->use_cni)
		da->busy_budget = 0;
	if (external_prog && da->dp_path[0] == '\0') {
		int n = snprintf(da->dp_path, sizeof(da->dp_path), "%s/%s/%s", AF_XDP_DP_DIR,
				 da->iface, da->use_cni ? AF_XDP_DP_SOCKET_NAME : AF_XDP_DP_MAP_NAME);

		if (n < 0 || (size_t)n >= sizeof(da->dp_path))
			return fail(err, len, "default %s too long", AF_XDP_ARG_DP_PATH);
	}
	return 0;
}

int
af_xdp_devargs_parse(const char *args, struct af_xdp_devargs *da,
		     char *err, size_t err_len)
{
	struct rte_kvargs *kvlist = NULL;
	unsigned int i;
	int ret = 0;

	set_defaults(da);
	err[0] = '\0';

	if (args != NULL && args[0] != '\0') {
		/* No key filter here: we want to name the unknown key ourselves. */
		kvlist = rte_kvargs_parse(args, NULL);
		if (kvlist == NULL)
			return fail(err, err_len, "cannot parse devargs '%s': expected key=value pairs separated by commas",
				    args);
	}

	for (i = 0; kvlist != NULL && i < kvlist->count; i++) {
		const char *key = kvlist->pairs[i].key;
		const char *value = kvlist->pairs[i].value;
		arg_parser_t parse = find_parser(key);

		if (parse == NULL) {
			char keys[256];

			list_keys(keys, sizeof(keys));
			ret = fail(err, err_len, "unknown devarg '%s'; valid ones are: %s", key, keys);
			break;
		}
		if (rte_kvargs_count(kvlist, key) > 1) {
			ret = fail(err, err_len, "%s is given more than once; give it once", key);
			break;
		}
		if (value == NULL)
			value = "";
		ret = parse(key, value, da, err, err_len);
		if (ret != 0)
			break;
	}
	rte_kvargs_free(kvlist);
	if (ret != 0)
		return ret;

	return check_combinations(da, err, err_len);
}
