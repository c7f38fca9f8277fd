/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The frame template and the stamping of sequence numbers and flows: every
 * header field, and the IPv4 checksum checked the way a receiver checks it
 * (the sum of all header words, checksum included, is 0xffff).
 */

#include <string.h>

#include "gen.h"
#include "unit_test.h"

static unsigned int
get16(const uint8_t *p)
{
	return (unsigned int)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* RFC 1071 over the whole header: 0xffff when the checksum is right. */
static unsigned int
ip_verify(const uint8_t *ip)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += get16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static struct gen_frame_spec
spec_of(unsigned int size, unsigned int flows)
{
	struct gen_frame_spec s = {
		.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
		.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
		.src_ip = 0xc6120001,
		.dst_ip = 0xc6120002,
		.src_port = 1024,
		.dst_port = 9,
		.size = size,
		.flows = flows,
	};
	return s;
}

static void
test_template(void)
{
	static const unsigned int sizes[] = { 60, 64, 512, 1500, 1514 };

	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned int size = sizes[k];
		struct gen_frame_spec s = spec_of(size, 1);
		uint8_t f[2048];
		bool pattern_ok = true;

		memset(f, 0xaa, sizeof(f));
		gen_frame_build(f, &s, 7);
		CHECK(memcmp(f, s.dst_mac, 6) == 0, "dst mac");
		CHECK(memcmp(f + 6, s.src_mac, 6) == 0, "src mac");
		CHECK_EQ(get16(f + 12), 0x0800);
		CHECK_EQ(f[14], 0x45);
		CHECK_EQ(get16(f + 16), size - 14);
		CHECK_EQ(f[23], 17);
		CHECK_EQ(get32(f + 26), s.src_ip);
		CHECK_EQ(get32(f + 30), s.dst_ip);
		CHECK_EQ(ip_verify(f + 14), 0xffff);
		CHECK_EQ(gen_ip_checksum(f + 14), get16(f + GEN_OFF_IP_CSUM));
		CHECK_EQ(get16(f + 34), 1024);
		CHECK_EQ(get16(f + 36), 9);
		CHECK_EQ(get16(f + 38), size - 34);
		CHECK_EQ(get16(f + 40), 0);
		CHECK_EQ(get16(f + GEN_OFF_THREAD), 7);
		CHECK_EQ(get32(f + GEN_OFF_MAGIC), GEN_MAGIC);
		CHECK_EQ(get64(f + GEN_OFF_SEQ), 0);
		CHECK_EQ(get16(f + GEN_OFF_FLOW), 0);
		for (unsigned int i = GEN_OFF_PATTERN; i < size; i++)
			pattern_ok &= f[i] == (uint8_t)i;
		CHECK(pattern_ok, "pattern of a %u-byte frame", size);
		CHECK_EQ(f[size], 0xaa);	/* nothing written past the end */
	}
}

/* One flow: stamping writes the sequence number only. */
static void
test_stamp_one_flow(void)
{
	struct gen_frame_spec s = spec_of(64, 1);
	struct gen_cfg cfg;
	uint8_t f[64], g[64];

	gen_frame_build(f, &s, 0);
	gen_frame_cfg(&cfg, &s);
	memcpy(g, f, sizeof(f));
	gen_frame_stamp(f, &cfg, 0x0102030405060708ull, 0);
	CHECK_EQ(get64(f + GEN_OFF_SEQ), 0x0102030405060708ull);
	memset(f + GEN_OFF_SEQ, 0, 8);
	CHECK(memcmp(f, g, sizeof(f)) == 0, "only the sequence number changed");
}

/* Several flows: port, address and a checksum that holds, carries included. */
static void
test_stamp_flows(void)
{
	static const uint32_t bases[] = { 0xc6120001, 0x0afffff0, 0xfffefff0, 0x00000001 };

	for (unsigned int b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		struct gen_frame_spec s = spec_of(128, 40);
		struct gen_cfg cfg;
		uint8_t f[128];
		unsigned int bad = 0;

		s.src_ip = bases[b];
		s.src_port = 65000;
		gen_frame_build(f, &s, 1);
		gen_frame_cfg(&cfg, &s);
		CHECK_EQ(cfg.flows, 40);
		for (uint32_t flow = 0; flow < 40; flow++) {
			gen_frame_stamp(f, &cfg, 100 + flow, flow);
			bad += ip_verify(f + 14) != 0xffff;
			bad += get32(f + 26) != bases[b] + flow;
			bad += get16(f + 34) != 65000 + flow;
			bad += get16(f + GEN_OFF_FLOW) != flow;
			bad += get64(f + GEN_OFF_SEQ) != 100 + flow;
			bad += get16(f + 16) != 128 - 14;
		}
		CHECK_EQ(bad, 0);
	}
}

int
main(void)
{
	RUN(test_template);
	RUN(test_stamp_one_flow);
	RUN(test_stamp_flows);
	return unit_summary();
}
