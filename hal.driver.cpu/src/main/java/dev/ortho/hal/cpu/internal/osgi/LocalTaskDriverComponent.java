package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.cpu.internal.task.LocalTaskDriver;
import dev.ortho.hal.cpu.internal.task.LocalTaskDriverFactory;
import dev.ortho.hal.cpu.internal.task.LocalTaskOptions;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.spi.DriverFactory;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Thin OSGi adapter: publishes the {@code local-task} {@link DriverFactory} with the default
 * device options of its configuration (PID {@code dev.ortho.hal.driver.local_task}; a change
 * re-creates the component) and keeps its devices' executable loaders in step with the
 * {@link ExecutableLoader} services ({@link LoaderTrackingDriverComponent}). Devices are owned by
 * whoever created them until the component is deactivated (bundle stopped, configuration
 * changed): then every device it created is torn down at once (DESIGN §3: unfinished work fails
 * with UNAVAILABLE, no worker thread is left).
 */
@Component(service = DriverFactory.class, configurationPid = "dev.ortho.hal.driver.local_task",
        configurationPolicy = ConfigurationPolicy.OPTIONAL, property = {
            "hal.driver.name=" + LocalTaskDriver.NAME,
            "hal.driver.description=" + LocalTaskDriver.DESCRIPTION})
@Designate(ocd = LocalTaskConfig.class)
public final class LocalTaskDriverComponent extends LoaderTrackingDriverComponent<LocalTaskDriverFactory> {
    /** Reads the default device options from {@code config}. */
    @Activate
    public LocalTaskDriverComponent(LocalTaskConfig config) {
        super(config.vmvx__compile(), loaders -> new LocalTaskDriverFactory(loaders, new LocalTaskOptions(
                config.queue__count(), config.task__topology__group__count(),
                config.task__topology__max__group__count(), config.task__worker__spin__us(),
                config.pool__quota__bytes(), config.inline__transfer__bytes(), null,
                LocalTaskOptions.parseQueueOrder(config.queue__order()), config.task__worker__linger__us(),
                config.task__caller__runs(), config.task__waiter__helps())));
    }

    /** Tears down the devices created through this component. */
    @Deactivate
    void deactivate() {
        factory().close();
    }
}
