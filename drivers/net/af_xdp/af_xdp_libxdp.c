/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * What the driver needs around libbpf and libxdp themselves: their log
 * messages routed to ours, their error codes in words, the programs libxdp
 * finds on an interface, and libxdp's attach and detach with the
 * descriptors that libxdp before 1.4.1 leaks closed.
 */

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "af_xdp_libxdp.h"

const char *
af_xdp_lib_strerror_r(int err, char *buf, size_t size)
{
	if (libbpf_strerror(err, buf, size) != 0)
		snprintf(buf, size, "error %d", err);
	return buf;
}

/* libbpf and libxdp speak through our log type, at a level that fits. */
static int
lib_print(int level, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	rte_log((uint32_t)level, af_xdp_logtype, "%s\n", msg);
	return 0;
}

static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf warns about things that are normal here (unknown sections). */
	return lib_print(level == LIBBPF_WARN ? RTE_LOG_INFO : RTE_LOG_DEBUG, fmt, ap);
}

/*
 * libxdp warns about what is routine here (no bpffs in a network
 * namespace, no dispatcher: a single program is attached instead); the
 * driver reports the outcome itself, and every failure with its cause.
 */
static int
libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return lib_print(level == LIBXDP_DEBUG ? RTE_LOG_DEBUG : RTE_LOG_INFO, fmt, ap);
}

void
af_xdp_libxdp_route_logs(void)
{
	static bool done;

	if (done)
		return;
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
	done = true;
}

static void
add_prog_id(struct af_xdp_prog_ids *ids, const struct xdp_program *prog)
{
	uint32_t id = prog != NULL ? xdp_program__id(prog) : 0;
	unsigned int i;

	for (i = 0; i < ids->n; i++)
		if (ids->id[i] == id)
			return;
	if (id != 0 && ids->n < RTE_DIM(ids->id))
		ids->id[ids->n++] = id;
}

#if AF_XDP_LIBXDP_LEAKS_PROG_FDS
/*
 * libxdp before 1.4.1 (Debian 12 has 1.3.1) leaks a descriptor of each
 * program it finds on an interface: xdp_multiprog__get_from_ifindex(),
 * which xdp_program__attach() and xdp_program__detach() call as well, opens
 * each program (by id, or by its pin under the dispatcher), keeps a
 * duplicate and closes only the duplicate (xdp-tools 48ad94b, in 1.4.1).  A
 * leaked descriptor keeps its program loaded until the process exits: one
 * program and two descriptors per port stop/start.  So, built against such
 * a libxdp (meson.build decides, by its version), each such call is
 * bracketed: the program descriptors the process holds are noted before
 * it, and after it those that are new and refer to one of the programs the
 * call looked up (their ids, which libxdp returned to a lookup just
 * before) are closed.  The one descriptor this could take from someone
 * else is one that another thread of the application opened, during the
 * call, for one of these very programs: the driver makes these calls
 * under af_xdp_prog.c's attach_lock, and the programs are on an interface
 * of ours.
 */
#define GUARD_MAX_FDS	256

struct prog_fd {
	int fd;
	uint32_t id;
};

struct leak_guard {
	struct prog_fd held[GUARD_MAX_FDS];	/* the process's program descriptors before */
	unsigned int nb_held;
	bool blind;			/* too many to note: close nothing */
};

static bool
has_prog_id(const struct af_xdp_prog_ids *ids, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < ids->n; i++)
		if (ids->id[i] == id)
			return true;
	return false;
}

static bool
is_prog_fd(int fd)
{
	char path[32], target[32];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:bpf-prog") == 0;
}

/* The process's descriptors of BPF programs, at most max; -errno. */
static int
list_prog_fds(struct prog_fd *out, unsigned int max, bool *more)
{
	DIR *dir = opendir("/proc/self/fd");
	unsigned int n = 0;
	struct dirent *e;

	*more = false;
	if (dir == NULL)
		return -errno;
	while ((e = readdir(dir)) != NULL) {
		struct bpf_prog_info info = { 0 };
		uint32_t len = sizeof(info);
		int fd = atoi(e->d_name);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(dir) ||
		    !is_prog_fd(fd) || bpf_obj_get_info_by_fd(fd, &info, &len) != 0)
			continue;
		if (n == max) {
			*more = true;
			break;
		}
		out[n++] = (struct prog_fd){ .fd = fd, .id = info.id };
	}
	closedir(dir);
	return (int)n;
}

/* Note the program descriptors the process holds now. */
static void
leak_guard_note(struct leak_guard *g)
{
	int n = list_prog_fds(g->held, RTE_DIM(g->held), &g->blind);

	g->blind |= n < 0;
	g->nb_held = n > 0 ? (unsigned int)n : 0;
}

static bool
held_before(const struct leak_guard *g, const struct prog_fd *p)
{
	unsigned int i;

	for (i = 0; i < g->nb_held; i++)
		if (g->held[i].fd == p->fd && g->held[i].id == p->id)
			return true;
	return false;
}

/* Close the descriptors of programs ids opened since leak_guard_note(). */
static void
leak_guard_close(const struct leak_guard *g, const struct af_xdp_prog_ids *ids)
{
	struct prog_fd now[GUARD_MAX_FDS];
	bool more;
	int i, n;

	if (ids->n == 0 || g->blind)
		return;
	n = list_prog_fds(now, RTE_DIM(now), &more);
	for (i = 0; i < n; i++)
		if (has_prog_id(ids, now[i].id) && !held_before(g, &now[i])) {
			AF_XDP_LOG(DEBUG, "closing descriptor %d of XDP program id %u, leaked by libxdp",
				   now[i].fd, now[i].id);
			close(now[i].fd);
		}
}
#else
/* libxdp 1.4.1 and later close what they open: nothing to guard. */
struct leak_guard {
	bool unused;
};

static void
leak_guard_note(struct leak_guard *g __rte_unused)
{
}

static void
leak_guard_close(const struct leak_guard *g __rte_unused,
		 const struct af_xdp_prog_ids *ids __rte_unused)
{
}
#endif /* AF_XDP_LIBXDP_LEAKS_PROG_FDS */

void
af_xdp_libxdp_iface_programs(int ifindex, struct af_xdp_prog_ids *ids)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct xdp_program *p = NULL;
	struct xdp_multiprog *mp;
	struct leak_guard g;

	ids->n = 0;
	if (bpf_xdp_query(ifindex, 0, &q) != 0 ||
	    (q.drv_prog_id == 0 && q.skb_prog_id == 0 && q.hw_prog_id == 0))
		return;
	/* Which programs the lookup leaks is known only after it: all it found. */
	leak_guard_note(&g);
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (libxdp_get_error(mp) || mp == NULL)
		return;
	add_prog_id(ids, xdp_multiprog__main_prog(mp));
	add_prog_id(ids, xdp_multiprog__hw_prog(mp));
	while ((p = xdp_multiprog__next_prog(p, mp)) != NULL)
		add_prog_id(ids, p);
	xdp_multiprog__close(mp);
	leak_guard_close(&g, ids);
}

/* A libxdp call that looks the interface's programs up, and its guard. */
struct libxdp_call {
	struct af_xdp_prog_ids on_iface;	/* the programs it may leak descriptors of */
	struct leak_guard guard;
};

/* Before a libxdp call on the interface; after it, libxdp_call_end(). */
static void
libxdp_call_begin(int ifindex, struct libxdp_call *c)
{
	c->on_iface.n = 0;
	if (!AF_XDP_LIBXDP_LEAKS_PROG_FDS)
		return;
	af_xdp_libxdp_iface_programs(ifindex, &c->on_iface);
	if (c->on_iface.n != 0)
		leak_guard_note(&c->guard);
}

static void
libxdp_call_end(const struct libxdp_call *c)
{
	leak_guard_close(&c->guard, &c->on_iface);
}

int
af_xdp_libxdp_attach(struct xdp_program *prog, int ifindex, enum xdp_attach_mode mode)
{
	struct libxdp_call call;
	int ret;

	libxdp_call_begin(ifindex, &call);
	ret = xdp_program__attach(prog, ifindex, mode, 0);
	libxdp_call_end(&call);
	return ret;
}

int
af_xdp_libxdp_detach(struct xdp_program *prog, int ifindex, enum xdp_attach_mode mode)
{
	struct libxdp_call call;
	int ret;

	libxdp_call_begin(ifindex, &call);
	ret = xdp_program__detach(prog, ifindex, mode, 0);
	libxdp_call_end(&call);
	return ret;
}
