/* Startup code for a kiln AOT bundle on a Cortex-M4/M7 MPS2 board under QEMU
 * (mps2-an386 / mps2-an500), linked with newlib's semihosting C library
 * (--specs=rdimon.specs) and cortex_m.ld.
 *
 *   Reset_Handler  enables the FPU, copies .data, then jumps to newlib's
 *                  rdimon crt0 (_start), which zeroes .bss, fetches argv from
 *                  QEMU (-semihosting-config ...,arg=...), calls main and exit.
 *   faults         print the fault's name and exit QEMU with status 128 + the
 *                  exception number (HardFault: 131) instead of hanging.
 *   _stack_init, _sbrk
 *                  keep the stack and heap where cortex_m.ld puts them: crt0
 *                  otherwise moves the stack to wherever QEMU's SYS_HEAPINFO
 *                  says, and newlib's _sbrk would not know the heap's end.
 *   posix_memalign  missing from Debian's newlib, needed by its aligned_alloc.
 *   kiln_mcu_now_ms
 *                  a millisecond clock from SysTick for the runner's --repeat.
 *
 * Exit status: newlib's exit() uses SYS_EXIT_EXTENDED when QEMU advertises it
 * (QEMU >= 7.0 does), so main's return value becomes QEMU's exit status.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Semihosting ------------------------------------------------------- */

#define SEMIHOST_SYS_WRITE0 0x04u
#define SEMIHOST_SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

/* On M-profile a semihosting call is `bkpt 0xab` with the operation in r0 and
 * its argument in r1; the result comes back in r0. */
static uint32_t semihost(uint32_t op, const void* arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

/* Ends the QEMU process with `status` (never returns). */
static void __attribute__((noreturn)) semihost_exit(uint32_t status) {
  uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, status};
  for (;;) semihost(SEMIHOST_SYS_EXIT_EXTENDED, block);
}

/* ---- Faults ------------------------------------------------------------ */

#define SCB_ICSR (*(volatile uint32_t*)0xE000ED04u)

/* Every unexpected exception lands here: name it on the semihosting console
 * and exit with 128 + its number so `make qemu` fails instead of hanging. */
void Fault_Handler(void) {
  static const char* const names[16] = {
      "?", "Reset", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault", "?",
      "?", "?", "?", "SVCall", "DebugMonitor", "?", "PendSV", "SysTick"};
  uint32_t exception = SCB_ICSR & 0x1FFu; /* VECTACTIVE */
  semihost(SEMIHOST_SYS_WRITE0, "kiln firmware: unexpected exception: ");
  semihost(SEMIHOST_SYS_WRITE0, exception < 16 ? names[exception] : "external interrupt");
  semihost(SEMIHOST_SYS_WRITE0, "\n");
  semihost_exit(128u + exception);
}

/* ---- SysTick clock ----------------------------------------------------- */

/* SysTick counts the processor clock: the MPS2 boards' SYSCLK, 25 MHz in
 * QEMU. Under `-icount shift=0` QEMU advances virtual time by 1 ns per
 * instruction, so this clock measures virtual time (instructions / 1e9 s),
 * not the cycle timing of a real M4/M7. */
#define KILN_MCU_SYSCLK_HZ 25000000u

#define SYST_CSR (*(volatile uint32_t*)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018u)
#define SYST_CSR_ENABLE 1u
#define SYST_CSR_TICKINT 2u
#define SYST_CSR_CLKSOURCE 4u /* processor clock, not the 1 MHz reference */
#define SCB_ICSR_PENDSTSET (1u << 26)
#define SYST_MAX 0xFFFFFFu /* the counter is 24 bits wide */

/* Number of times the 24-bit counter wrapped (each 2^24 / 25 MHz = 0.67 s). */
static volatile uint32_t systick_wraps;

void SysTick_Handler(void) { systick_wraps = systick_wraps + 1u; }

/* Milliseconds since the first call (the runner only takes differences). */
double kiln_mcu_now_ms(void) {
  if (!(SYST_CSR & SYST_CSR_ENABLE)) {
    SYST_RVR = SYST_MAX;
    SYST_CVR = 0; /* any write clears the counter; it reloads on the next tick */
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
    /* The counter reads 0 until its first reload from RVR, which would look
     * like a full period later than the readings after it: wait for the
     * reload, and let any interrupt it raised run, before the first reading. */
    while (SYST_CVR == 0) {
    }
    __asm__ volatile("dsb\n isb" ::: "memory");
  }
  uint32_t wraps, value, pending;
  /* Re-read if the interrupt ran in between. A wrap whose interrupt is still
   * pending shows as PENDSTSET with the counter just reloaded (high): count it. */
  do {
    wraps = systick_wraps;
    value = SYST_CVR;
    pending = SCB_ICSR & SCB_ICSR_PENDSTSET;
  } while (wraps != systick_wraps);
  if (pending && value > SYST_MAX / 2) wraps += 1u;
  uint64_t ticks = (uint64_t)wraps * (SYST_MAX + 1u) + (SYST_MAX - value);
  return (double)ticks * (1e3 / KILN_MCU_SYSCLK_HZ);
}

/* ---- Memory layout (symbols from cortex_m.ld) --------------------------- */

extern uint32_t __data_load[], __data_start[], __data_end[];
extern char __heap_start[], __heap_end[];

/* crt0 first points sp at the stack SYS_HEAPINFO reports (QEMU picks the
 * board's largest RAM, which differs between an386 and an500), then calls
 * this hook before pushing anything: move sp back to cortex_m.ld's stack. */
__attribute__((naked)) void _stack_init(void) {
  __asm__ volatile(
      "ldr r3, =__stack_top\n"
      "mov sp, r3\n"
      "bx lr\n");
}

/* malloc's memory: [__heap_start, __heap_end) from cortex_m.ld, so the heap
 * can never run into the stack reserved above it. */
void* _sbrk(ptrdiff_t increment) {
  static char* brk = __heap_start;
  if (increment > __heap_end - brk || increment < __heap_start - brk) {
    errno = ENOMEM;
    return (void*)-1;
  }
  char* previous = brk;
  brk += increment;
  return previous;
}

/* Debian's newlib (4.1) has aligned_alloc, which the runner uses, call a
 * posix_memalign it does not provide: supply it from newlib's memalign. */
void* memalign(size_t alignment, size_t bytes);
int posix_memalign(void** out, size_t alignment, size_t bytes);
int posix_memalign(void** out, size_t alignment, size_t bytes) {
  void* p = memalign(alignment, bytes);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

/* ---- Reset ------------------------------------------------------------- */

#define SCB_CPACR (*(volatile uint32_t*)0xE000ED88u)

extern void _start(void); /* newlib rdimon crt0 */

/* Runs before any floating-point instruction: newlib and the kernels are
 * built for the hard-float ABI, and the FPU is off after reset. */
void Reset_Handler(void) {
  SCB_CPACR |= 0xFu << 20; /* CP10 and CP11: full access */
  __asm__ volatile("dsb\n isb" ::: "memory");
  /* .data's initial values are stored in code memory (real hardware has no
   * loader); QEMU loads them there too, so copy them in either case. */
  for (uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;) *dst++ = *src++;
  _start();
  semihost_exit(1); /* not reached: crt0 calls exit() */
}

/* ---- Vector table ------------------------------------------------------ */

extern uint32_t __stack_top[];

/* The 16 Armv7-M system exceptions; no peripheral interrupt is enabled, and
 * VTOR resets to 0, where cortex_m.ld places this table. */
__attribute__((section(".vectors"), used)) static void (*const vector_table[16])(void) = {
    (void (*)(void))__stack_top,
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    0, 0, 0, 0,    /* reserved */
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,             /* reserved */
    Fault_Handler, /* PendSV */
    SysTick_Handler,
};
