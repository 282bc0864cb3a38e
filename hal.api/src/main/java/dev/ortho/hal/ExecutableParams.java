package dev.ortho.hal;

import java.lang.foreign.MemorySegment;

/**
 * What to prepare an executable from: IREE's {@code iree_hal_executable_params_t}.
 *
 * @param format the executable format, e.g. {@code jvm-static} or {@code vmvx-bytecode-fb}
 * @param data the executable's bytes in that format; read during preparation only
 * @param constants executable-level specialization constants (may be empty)
 */
public record ExecutableParams(String format, MemorySegment data, int[] constants) {}
