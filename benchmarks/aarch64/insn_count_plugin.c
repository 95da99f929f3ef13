/* A QEMU TCG plugin that counts the guest instructions a program executes,
 * and among them the vector fused multiply-adds (FMLA on v registers) and
 * the scalar ones (FMADD, or FMLA on s registers). Debian's QEMU ships no
 * plugins (no libinsn.so), but its qemu-user is built with plugin support:
 * this file is compiled for the host and loaded with
 *   qemu-aarch64 -plugin ./insn_count_plugin.so PROGRAM ...
 * At exit it prints one line to stderr:
 *   insn_count: insns=N vector_fmla=N scalar_fma=N
 * insns_per_mac.sh runs a kernel R1 and R2 times and divides the difference
 * by the multiply-adds of R2 - R1 runs, so start-up and setup cancel out.
 * Single-threaded guests only (the counters are plain, not per vCPU).
 *
 * The plugin API is QEMU's public C ABI (plugin version 1, QEMU 7.x); the few
 * declarations used are written out here because Debian installs no
 * qemu-plugin.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn* insn,
                                                enum qemu_plugin_op op, void* ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void* userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
char* qemu_plugin_insn_disas(const struct qemu_plugin_insn* insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t insns, vector_fmla, scalar_fma;

static int starts_with(const char* s, const char* p) { return strncmp(s, p, strlen(p)) == 0; }

/* Counting is inline (an add per executed instruction), decided once per
 * translated instruction from its disassembly: "fmla v0.4s, v1.4s, v2.s[0]". */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &insns, 1);
    char* text = qemu_plugin_insn_disas(insn);
    if (text == NULL) continue;
    uint64_t* counter = NULL;
    if (starts_with(text, "fmla v")) {
      counter = &vector_fmla;
    } else if (starts_with(text, "fmadd ") || starts_with(text, "fmla s")) {
      counter = &scalar_fma;
    }
    if (counter != NULL) {
      qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, counter, 1);
    }
    free(text);
  }
}

static void report_at_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  fprintf(stderr, "insn_count: insns=%llu vector_fmla=%llu scalar_fma=%llu\n",
          (unsigned long long)insns, (unsigned long long)vector_fmla,
          (unsigned long long)scalar_fma);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                                const struct qemu_info_t* info,
                                                                int argc, char** argv) {
  (void)info;
  (void)argv;
  if (argc != 0) {
    fprintf(stderr, "insn_count: takes no arguments\n");
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, report_at_exit, NULL);
  return 0;
}
