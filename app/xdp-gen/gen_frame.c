/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/* The frame template and what the XDP program does to it, in C. */

#include <string.h>

#include "gen.h"

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint16_t
fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint16_t
gen_ip_checksum(const uint8_t *ip)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < 20; i += 2)
		if (i != 10)
			sum += get16(ip + i);
	return (uint16_t)~fold(sum);
}

/* The header's words without the source address (12..15) and the checksum (10..11). */
static uint32_t
ip_partial_sum(const uint8_t *ip)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < 20; i += 2)
		if (i != 10 && i != 12 && i != 14)
			sum += get16(ip + i);
	return sum;
}

/* Ethernet, IPv4 and UDP headers: the first GEN_OFF_PAYLOAD bytes. */
static void
build_headers(uint8_t *frame, const struct gen_frame_spec *spec)
{
	uint8_t *ip = frame + GEN_OFF_IP;
	uint8_t *udp = frame + GEN_OFF_UDP;

	memcpy(frame, spec->dst_mac, ETH_ALEN_);
	memcpy(frame + 6, spec->src_mac, ETH_ALEN_);
	put16(frame + 12, 0x0800);		/* IPv4 */

	ip[0] = 0x45;				/* version 4, 5 words */
	ip[1] = 0;				/* DSCP, ECN */
	put16(ip + 2, spec->size - GEN_OFF_IP);	/* total length */
	put16(ip + 4, 0);			/* identification */
	put16(ip + 6, 0x4000);			/* don't fragment */
	ip[8] = 64;				/* TTL */
	ip[9] = 17;				/* UDP */
	put16(ip + 10, 0);
	put32(ip + 12, spec->src_ip);
	put32(ip + 16, spec->dst_ip);
	put16(ip + 10, gen_ip_checksum(ip));

	put16(udp, spec->src_port);
	put16(udp + 2, spec->dst_port);
	put16(udp + 4, spec->size - GEN_OFF_UDP);
	put16(udp + 6, 0);			/* no checksum: allowed over IPv4 */
}

void
gen_frame_build(uint8_t *frame, const struct gen_frame_spec *spec, unsigned int thread)
{
	build_headers(frame, spec);
	put16(frame + GEN_OFF_THREAD, thread);
	put32(frame + GEN_OFF_MAGIC, GEN_MAGIC);
	put64(frame + GEN_OFF_SEQ, 0);
	put16(frame + GEN_OFF_FLOW, 0);
	for (unsigned int i = GEN_OFF_PATTERN; i < spec->size; i++)
		frame[i] = (uint8_t)i;
}

void
gen_frame_cfg(struct gen_cfg *cfg, const struct gen_frame_spec *spec)
{
	uint8_t headers[GEN_OFF_PAYLOAD];

	build_headers(headers, spec);
	memset(cfg, 0, sizeof(*cfg));
	cfg->flows = spec->flows;
	cfg->src_ip = spec->src_ip;
	cfg->src_port = spec->src_port;
	cfg->ip_sum = ip_partial_sum(headers + GEN_OFF_IP);
}

void
gen_frame_stamp(uint8_t *frame, const struct gen_cfg *cfg, uint64_t seq, uint32_t flow)
{
	put64(frame + GEN_OFF_SEQ, seq);
	if (cfg->flows > 1) {
		uint32_t saddr = cfg->src_ip + flow;
		uint32_t sum = cfg->ip_sum + (saddr >> 16) + (saddr & 0xffff);

		put16(frame + GEN_OFF_FLOW, flow);
		put16(frame + GEN_OFF_UDP_SPORT, cfg->src_port + flow);
		put32(frame + GEN_OFF_IP_SADDR, saddr);
		put16(frame + GEN_OFF_IP_CSUM, (uint16_t)~fold(sum));
	}
}
