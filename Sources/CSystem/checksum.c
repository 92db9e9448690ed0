// CRC-32C (Castagnoli), which every frame carries so that bytes damaged on their way are
// found: with the CPU's instruction where there is one (SSE 4.2), else a table.
#include "csystem.h"
#include <pthread.h>
#include <stdint.h>
#include <string.h>

static uint32_t table[256];
static pthread_once_t table_made = PTHREAD_ONCE_INIT;

static void make_table(void) {
  for (uint32_t index = 0; index < 256; index++) {
    uint32_t crc = index;
    for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    table[index] = crc;
  }
}

static uint32_t by_table(uint32_t crc, const uint8_t *bytes, size_t count) {
  pthread_once(&table_made, make_table);
  for (size_t index = 0; index < count; index++) crc = table[(crc ^ bytes[index]) & 0xFF] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t by_instruction(uint32_t crc, const uint8_t *bytes, size_t count) {
  uint64_t wide = crc;
  while (count >= 8) {
    uint64_t word;
    memcpy(&word, bytes, 8);
    wide = __builtin_ia32_crc32di(wide, word);
    bytes += 8;
    count -= 8;
  }
  crc = (uint32_t)wide;
  while (count > 0) {
    crc = __builtin_ia32_crc32qi(crc, *bytes);
    bytes++;
    count--;
  }
  return crc;
}
#endif

uint32_t bulkhead_crc32c(uint32_t crc, const void *bytes, size_t count) {
  crc = ~crc;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("sse4.2")) return ~by_instruction(crc, bytes, count);
#endif
  return ~by_table(crc, bytes, count);
}
