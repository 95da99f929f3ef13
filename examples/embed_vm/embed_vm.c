/* Embeds the Kiln VM: embed_vm MODEL.kiln INPUT.raw OUTPUT.raw
 * Runs a one-input, one-output module on raw little-endian tensor bytes. */
#include <stdio.h>
#include <stdlib.h>

#include "kiln/vm.h"

static int fail(kiln_vm_error* e) {
  fprintf(stderr, "embed_vm: %s\n", kiln_vm_error_message(e));
  kiln_vm_error_free(e);
  return 1;
}

int main(int argc, char** argv) {
  kiln_vm_module* module;
  kiln_vm_instance* vm;
  kiln_vm_tensor_info in, out;
  kiln_vm_error* e;
  if (argc != 4) return fprintf(stderr, "usage: %s MODEL.kiln INPUT.raw OUTPUT.raw\n", argv[0]), 2;
  if ((e = kiln_vm_module_load_file(argv[1], &module))) return fail(e);
  if ((e = kiln_vm_module_input_info(module, 0, &in)) ||
      (e = kiln_vm_module_output_info(module, 0, &out)) ||
      (e = kiln_vm_instance_create(module, &vm))) return fail(e);
  printf("input '%s' %s rank %zu (%zu bytes), output '%s' (%zu bytes), arena %llu bytes\n",
         in.name, kiln_vm_dtype_name(in.dtype), in.rank, in.byte_size, out.name, out.byte_size,
         (unsigned long long)kiln_vm_module_arena_bytes(module));
  void* x = malloc(in.byte_size);
  void* y = malloc(out.byte_size);
  FILE* f = fopen(argv[2], "rb");
  if (!x || !y || !f || fread(x, 1, in.byte_size, f) != in.byte_size) {
    return fprintf(stderr, "embed_vm: cannot read %zu bytes from %s\n", in.byte_size, argv[2]), 1;
  }
  fclose(f);
  if ((e = kiln_vm_instance_bind_input(vm, 0, x, in.byte_size)) ||
      (e = kiln_vm_instance_bind_output(vm, 0, y, out.byte_size)) ||
      (e = kiln_vm_instance_run(vm))) return fail(e);
  f = fopen(argv[3], "wb");
  if (!f || fwrite(y, 1, out.byte_size, f) != out.byte_size || fclose(f) != 0) return 1;
  kiln_vm_instance_release(vm);
  kiln_vm_module_release(module);
  free(x);
  free(y);
  return 0;
}
