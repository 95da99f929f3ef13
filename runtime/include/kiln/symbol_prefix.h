/* Symbol prefixing for AOT bundles.
 *
 * In the runtime library this file is empty: kernels keep their kiln_ names.
 * `kiln aot --name NAME` writes its own copy into the bundle, defining every
 * kernel symbol as NAME_kiln_..., so that bundles of several models link into
 * one program without clashing. Only kiln/kernels.h includes it; the model
 * header NAME.h does not, so two models' headers can share a translation unit.
 */
#ifndef KILN_SYMBOL_PREFIX_H_
#define KILN_SYMBOL_PREFIX_H_
#endif /* KILN_SYMBOL_PREFIX_H_ */
