package dev.ortho.task.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/** Configuration of the executor service (ConfigAdmin PID {@code dev.ortho.task.executor}). */
@ObjectClassDefinition(name = "Ortho task executor", description = "Process-based cooperative task executor")
@interface ExecutorConfig {
    @AttributeDefinition(name = "Worker count", description = "Worker threads; 0 = one per topology group", min = "0", max = "256")
    int workerCount() default 0;

    @AttributeDefinition(name = "Topology", description = "Topology spec ('4' or '0,1|2,3'); empty = detect")
    String topology() default "";

    @AttributeDefinition(name = "Spin time (ns)", description = "Base time an idle worker spins before parking", min = "0")
    long spinNanos() default 50_000L;

    @AttributeDefinition(name = "Scan policy", options = {
        @Option(label = "Round robin", value = "ROUND_ROBIN"),
        @Option(label = "Priority", value = "PRIORITY"),
        @Option(label = "Budget weighted", value = "BUDGET_WEIGHTED")})
    String scanPolicy() default "ROUND_ROBIN";

    @AttributeDefinition(name = "Name", description = "Executor name in logs and task:stats")
    String name() default "ortho";
}
