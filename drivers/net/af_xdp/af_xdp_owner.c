/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The owner mark of the built-in XDP programs.
 *
 * A process that dies without detaching (SIGKILL, OOM) leaves its program
 * attached: the kernel keeps it as long as the interface holds it.  The
 * next start must tell that program from one a live process still uses.
 * The mark names the process that loaded the copy; a process is its pid
 * and its start time (a reused pid starts later), within a PID namespace
 * (the pid means nothing in another one, where we cannot tell, and say so).
 *
 * The mark is read back through the kernel alone: the program's .rodata map
 * (libbpf binds it to every program of the object), and that map's BTF,
 * which places the variable.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include <rte_common.h>

#include "af_xdp_owner.h"

/* Enough for the maps of any of our programs: an XSKMAP, counters, .rodata. */
#define OWNER_MAX_MAPS 8

int
af_xdp_owner_parse_stat(const char *stat, uint64_t *start_time, bool *exited)
{
	/* "pid (comm) state ppid ...": comm may hold anything, ')' included. */
	const char *p = strrchr(stat, ')');
	unsigned long long start;
	char state;
	int field;

	if (p == NULL || sscanf(p + 1, " %c", &state) != 1)
		return -EINVAL;
	/* One space before each field: field 3 is the state, 22 the start time. */
	for (field = 3; field <= 22; field++) {
		p = strchr(p + 1, ' ');
		if (p == NULL)
			return -EINVAL;
	}
	if (sscanf(p + 1, "%llu", &start) != 1)
		return -EINVAL;
	*start_time = start;
	*exited = state == 'Z' || state == 'X' || state == 'x';
	return 0;
}

/* 0, -ENOENT when there is no such process, another -errno otherwise. */
static int
read_proc_stat(const char *pid, uint64_t *start_time, bool *exited)
{
	char path[64], line[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	/* A process that exits between open and read reads as nothing. */
	if (n <= 0)
		return n == 0 ? -ENOENT : -errno;
	line[n] = '\0';
	return af_xdp_owner_parse_stat(line, start_time, exited);
}

static int
pid_ns_inode(uint64_t *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) != 0)
		return -errno;
	*ino = st.st_ino;
	return 0;
}

int
af_xdp_owner_self(struct af_xdp_owner *owner)
{
	uint64_t start, ns;
	bool exited;
	int ret;

	memset(owner, 0, sizeof(*owner));
	ret = read_proc_stat("self", &start, &exited);
	if (ret == 0)
		ret = pid_ns_inode(&ns);
	if (ret != 0)
		return ret;
	owner->start_time = start;
	owner->pid_ns = ns;
	owner->pid = (uint32_t)getpid();
	owner->magic = AF_XDP_OWNER_MAGIC;
	return 0;
}

enum af_xdp_owner_state
af_xdp_owner_state(const struct af_xdp_owner *owner)
{
	uint64_t ns = 0, start;
	char pid[16];
	bool exited;
	int ret;

	if (pid_ns_inode(&ns) != 0 || ns != owner->pid_ns)
		return AF_XDP_OWNER_UNKNOWN;
	snprintf(pid, sizeof(pid), "%u", owner->pid);
	ret = read_proc_stat(pid, &start, &exited);
	if (ret == -ENOENT || ret == -ESRCH)
		return AF_XDP_OWNER_GONE;
	if (ret != 0)
		return AF_XDP_OWNER_UNKNOWN;
	/* A later start: the pid was reused by another process. */
	return start != owner->start_time || exited ? AF_XDP_OWNER_GONE : AF_XDP_OWNER_RUNNING;
}

void
af_xdp_owner_describe(const struct af_xdp_owner *owner, enum af_xdp_owner_state state,
		      char *buf, size_t size)
{
	static const char * const states[] = {
		[AF_XDP_OWNER_RUNNING] = "still running",
		[AF_XDP_OWNER_GONE] = "which no longer exists",
		[AF_XDP_OWNER_UNKNOWN] = "in another PID namespace, or not readable in /proc: cannot tell whether it still runs",
	};
	long hz = sysconf(_SC_CLK_TCK);

	snprintf(buf, size, "process %u (started %.1f s after boot), %s", owner->pid,
		 (double)owner->start_time / (double)(hz > 0 ? hz : 100), states[state]);
}

int
af_xdp_btf_var_offset(const struct btf *btf, uint32_t datasec_id, const char *name,
		      size_t size)
{
	const struct btf_type *sec = btf__type_by_id(btf, datasec_id);
	const struct btf_var_secinfo *vs;
	int i;

	if (sec == NULL || !btf_is_datasec(sec))
		return -ENOENT;
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (var != NULL && vs->size == size &&
		    strcmp(btf__name_by_offset(btf, var->name_off), name) == 0)
			return (int)vs->offset;
	}
	return -ENOENT;
}

/* The mark in one map of the program, if that map is a .rodata holding it. */
static int
read_mark_from_map(uint32_t map_id, struct af_xdp_owner *owner)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info), key = 0;
	struct btf *btf = NULL;
	void *value = NULL;
	int fd, off, ret = -ENOENT;

	fd = bpf_map_get_fd_by_id(map_id);
	if (fd < 0)
		return -ENOENT;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0 || info.type != BPF_MAP_TYPE_ARRAY ||
	    strstr(info.name, ".rodata") == NULL || info.btf_id == 0 ||
	    info.value_size < sizeof(*owner))
		goto out;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (btf == NULL)
		goto out;
	off = af_xdp_btf_var_offset(btf, info.btf_value_type_id, AF_XDP_OWNER_VAR,
				    sizeof(*owner));
	value = malloc(info.value_size);
	if (off < 0 || (size_t)off + sizeof(*owner) > info.value_size || value == NULL ||
	    bpf_map_lookup_elem(fd, &key, value) != 0)
		goto out;
	memcpy(owner, (char *)value + off, sizeof(*owner));
	ret = owner->magic == AF_XDP_OWNER_MAGIC ? 0 : -ENOENT;
out:
	free(value);
	btf__free(btf);
	close(fd);
	return ret;
}

int
af_xdp_owner_read(int prog_fd, struct af_xdp_owner *owner)
{
	uint32_t map_ids[OWNER_MAX_MAPS];
	struct bpf_prog_info info = {
		.nr_map_ids = RTE_DIM(map_ids),
		.map_ids = (uint64_t)(uintptr_t)map_ids,
	};
	uint32_t len = sizeof(info), i;

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0)
		return -errno;
	for (i = 0; i < RTE_MIN(info.nr_map_ids, (uint32_t)RTE_DIM(map_ids)); i++)
		if (read_mark_from_map(map_ids[i], owner) == 0)
			return 0;
	return -ENOENT;
}
