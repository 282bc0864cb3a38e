package dev.ortho.hal.cpu.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * Default options of {@code local-task} devices (ConfigAdmin PID
 * {@code dev.ortho.hal.driver.local_task}); a device URI's parameters of the same names override
 * them ({@code vmvx_compile} here is the default of the driver's VMVX loader). Names follow
 * IREE's flags where IREE has one; the methods double the underscores because DS maps a single
 * underscore to a dot (so {@code queue__count()} is property {@code queue_count}).
 */
@ObjectClassDefinition(name = "Ortho local-task driver",
        description = "Asynchronous CPU device on the task executor: queues, workers, pool")
@interface LocalTaskConfig {
    @AttributeDefinition(description = "Queues per device (queue affinity bit i selects queue i % count)",
            min = "1", max = "64")
    int queue__count() default 1;

    @AttributeDefinition(description = "Worker threads per device; 0 = one per detected topology group",
            min = "0", max = "256")
    int task__topology__group__count() default 0;

    @AttributeDefinition(description = "Cap on the detected group count when task_topology_group_count is 0",
            min = "1", max = "256")
    int task__topology__max__group__count() default 64;

    @AttributeDefinition(description = "Microseconds an idle worker spins before parking (IREE's default 0)", min = "0")
    long task__worker__spin__us() default 0;

    @AttributeDefinition(description = "Microseconds a worker that has just finished work polls for more before"
            + " parking, one worker at a time (0: never; -1: adaptive, up to 50 µs and only while work keeps"
            + " coming back within that time)", min = "-1")
    long task__worker__linger__us() default -1;

    @AttributeDefinition(description = "Whether a thread that submits a command buffer or dispatch runs its first"
            + " tile itself when nothing runs before it on the queue, instead of waiting for a parked worker (off: IREE's behaviour)")
    boolean task__caller__runs() default false;

    @AttributeDefinition(description = "Whether a host thread waiting for a semaphore value that the operation running"
            + " on a queue signals runs that operation's unclaimed tiles itself instead of parking (off: IREE's behaviour)")
    boolean task__waiter__helps() default true;

    @AttributeDefinition(description = "Most bytes the stream-ordered allocation pool commits at once", min = "1")
    long pool__quota__bytes() default Long.MAX_VALUE;

    @AttributeDefinition(description = "Fills, copies and updates up to this many bytes run inline on the queue",
            min = "0")
    long inline__transfer__bytes() default 256 * 1024;

    @AttributeDefinition(description = "How VMVX dispatch functions run: off (interpreted), lazy (compiled to JVM"
            + " bytecode once hot, on the worker that finds them hot), eager (compiled when prepared)",
            options = {@Option(value = "off"), @Option(value = "lazy"), @Option(value = "eager")})
    String vmvx__compile() default "eager";

    @AttributeDefinition(description = "Queue order: unordered (IREE's local-task: an operation runs once its"
            + " waits are reached) or fifo (submission order; waits on values an earlier operation of the same"
            + " queue signals are skipped at submission)",
            options = {@Option(value = "unordered"), @Option(value = "fifo")})
    String queue__order() default "unordered";
}
