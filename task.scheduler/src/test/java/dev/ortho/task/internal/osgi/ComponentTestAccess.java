package dev.ortho.task.internal.osgi;

import dev.ortho.task.Executor;
import java.lang.annotation.Annotation;

/** Drives the DS components without a framework, as SCR would. */
public final class ComponentTestAccess {
    private ComponentTestAccess() {
    }

    public static Executor activate(int workers, String topology, long spin, String policy) {
        return new ExecutorComponent(new ExecutorConfig() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return ExecutorConfig.class;
            }

            @Override
            public int workerCount() {
                return workers;
            }

            @Override
            public String topology() {
                return topology;
            }

            @Override
            public long spinNanos() {
                return spin;
            }

            @Override
            public String scanPolicy() {
                return policy;
            }

            @Override
            public String name() {
                return "component";
            }
        });
    }

    public static void deactivate(Executor e) {
        ((ExecutorComponent) e).deactivate();
    }

    public static String stats(Executor e) {
        TaskStatsCommand cmd = new TaskStatsCommand();
        cmd.addExecutor(e);
        String s = cmd.stats();
        cmd.removeExecutor(e);
        return s;
    }
}
