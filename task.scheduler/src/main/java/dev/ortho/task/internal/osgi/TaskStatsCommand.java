package dev.ortho.task.internal.osgi;

import dev.ortho.task.Executor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Gogo command {@code task:stats}: one table per registered {@link Executor} service with
 * per-worker state and counters. A plain DS service; the shell finds it by its properties.
 */
@Component(service = TaskStatsCommand.class,
        property = {"osgi.command.scope=task", "osgi.command.function=stats"})
public final class TaskStatsCommand {
    private final List<Executor> executors = new CopyOnWriteArrayList<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addExecutor(Executor executor) {
        executors.add(executor);
    }

    void removeExecutor(Executor executor) {
        executors.remove(executor);
    }

    /** Renders every executor's stats; thread-safe. */
    public String stats() {
        if (executors.isEmpty()) {
            return "no task executor registered";
        }
        StringBuilder sb = new StringBuilder();
        for (Executor e : executors) {
            sb.append(e.stats().toTable());
        }
        return sb.toString();
    }
}
