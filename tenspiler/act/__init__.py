"""The accelerator side: ISA descriptions (:mod:`.isa`), the functional oracle generated from
them (:mod:`.oracle`), the assembly text format (:mod:`.assembly`), the C recording header
(:mod:`.record`) and the cost model (:mod:`.cost`)."""
