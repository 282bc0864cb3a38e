/**
 * Causal dependency tracking with vector-clock frontiers (IREE's {@code iree/async/frontier.h}
 * and the frontier design, seed 002). This is the layer HAL semaphores, queues and pools build
 * on; it depends on nothing but {@code dev.ortho.base}.
 *
 * <ul>
 *   <li>{@link dev.ortho.hal.frontier.Axis}: 64-bit axis encoding (session | machine | domain |
 *       ordinal), IREE's bit layout.
 *   <li>{@link dev.ortho.hal.frontier.Frontier}: a fixed-capacity sorted sparse vector clock with
 *       merge, dominance, comparison, conservative taint on overflow and anchors that let taint
 *       recover.
 *   <li>{@link dev.ortho.hal.frontier.QueueAxes}: hands out never-reused queue axes across a
 *       process (a random session, a machine index, one device index per device).
 *   <li>{@link dev.ortho.hal.frontier.FrontierComparison}: EQUAL / BEFORE / AFTER / CONCURRENT.
 *   <li>{@link dev.ortho.hal.frontier.TimelineFrontiers}: a semaphore's frontier at each
 *       signalled value, with pruning and the untainted watermark.
 *   <li>{@link dev.ortho.hal.frontier.SemaphoreScope}: how widely a semaphore is visible.
 *   <li>{@link dev.ortho.hal.frontier.ChannelAxis}: the one shared axis of a collective channel.
 * </ul>
 *
 * Bad arguments fail with {@link dev.ortho.base.StatusException}: INVALID_ARGUMENT for malformed
 * or invalid input, OUT_OF_RANGE for values beyond their bit width or a capacity.
 */
@Export
@Version("1.2.0")
package dev.ortho.hal.frontier;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
