package dev.ortho.task.internal.osgi;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.Executor;
import dev.ortho.task.ExecutorStats;
import dev.ortho.task.Process;
import dev.ortho.task.QueueProcess;
import dev.ortho.task.DrainFunction;
import dev.ortho.task.ScanPolicy;
import dev.ortho.task.Topology;
import java.time.Duration;
import java.util.Locale;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers a configured {@link Executor} service: builds the plain executor in
 * {@link #activate} and shuts it down in {@link #deactivate} (a configuration change re-creates
 * it). Forwards every call; owns the executor.
 */
@Component(service = Executor.class, configurationPid = "dev.ortho.task.executor",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = ExecutorConfig.class)
public final class ExecutorComponent implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorComponent.class);
    private final Executor delegate;

    /** Builds the executor from {@code config}. */
    @Activate
    public ExecutorComponent(ExecutorConfig config) {
        ScanPolicy policy;
        try {
            policy = ScanPolicy.valueOf(config.scanPolicy().strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "scanPolicy '" + config.scanPolicy() + "' is not one of ROUND_ROBIN, PRIORITY, BUDGET_WEIGHTED");
        }
        Executor.Builder b = Executor.builder().workerCount(config.workerCount()).spinNanos(config.spinNanos())
                .scanPolicy(policy).name(config.name());
        if (!config.topology().isBlank()) {
            b.topology(Topology.parse(config.topology()));
        }
        this.delegate = b.build();
        LOG.info("task executor '{}' active with {} workers", config.name(), delegate.workerCount());
    }

    /** Shuts the executor down, cancelling its live processes. */
    @Deactivate
    void deactivate() {
        delegate.close();
    }

    @Override
    public Process.Builder newProcess(String name, DrainFunction drain) {
        return delegate.newProcess(name, drain);
    }

    @Override
    public QueueProcess.Builder newQueueProcess(String name) {
        return delegate.newQueueProcess(name);
    }

    @Override
    public int workerCount() {
        return delegate.workerCount();
    }

    @Override
    public ScanPolicy scanPolicy() {
        return delegate.scanPolicy();
    }

    @Override
    public void setScanPolicy(ScanPolicy policy) {
        delegate.setScanPolicy(policy);
    }

    @Override
    public int aggregateBudget() {
        return delegate.aggregateBudget();
    }

    @Override
    public ExecutorStats stats() {
        return delegate.stats();
    }

    @Override
    public boolean shutdown(Duration timeout) {
        return delegate.shutdown(timeout);
    }

    /** The service's owner is SCR: closing through the service is refused. */
    @Override
    public void close() {
        throw new StatusException(StatusCode.PERMISSION_DENIED,
                "the executor service is owned by its component; deactivate the component instead");
    }
}
