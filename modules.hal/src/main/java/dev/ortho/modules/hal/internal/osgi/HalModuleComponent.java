package dev.ortho.modules.hal.internal.osgi;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.spi.DriverFactory;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.spi.ModuleProvider;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Thin OSGi adapter: the {@code hal} module as a {@link ModuleProvider} service
 * ({@code vm.module.name=hal}, {@code vm.module.version=7}).
 *
 * <p>Devices come from configuration PID {@value #PID}, property {@code hal.device}: device URIs
 * in {@code devices.get} order, created through the {@link DriverRegistry} (default
 * {@code local-sync}). They are created on the first {@link #createModule} (cheap activation,
 * expensive creation, as drivers do), shared by every module this component creates, and
 * released on deactivation (contexts still alive keep their own references), and also when the
 * driver factory of one of them goes away (its bundle stopping tears its devices down): the next
 * module then gets devices from the drivers registered at that time. Deactivation also
 * drops the {@link HalTypes} registrations its modules made, so that a new revision of this bundle
 * (stopped, updated or uninstalled and installed again) can register its own classes under the
 * same names in the shared {@link Instance}. Tools that choose
 * devices per run ({@code --device=}) call {@link HalModule#create} with their own devices
 * instead. A configuration change re-activates the component with the new devices.
 */
@Component(service = ModuleProvider.class, configurationPid = HalModuleComponent.PID,
        property = {ModuleProvider.NAME + "=" + HalModule.NAME,
                ModuleProvider.VERSION + ":Integer=" + HalModule.VERSION})
@Designate(ocd = HalModuleComponent.Config.class)
public final class HalModuleComponent implements ModuleProvider {
    /** The configuration PID. */
    public static final String PID = "dev.ortho.modules.hal";

    /** Configuration of the devices the service's modules expose. */
    @ObjectClassDefinition(name = "Ortho hal VM module", description = "Devices exposed to VM programs by the "
            + "hal module service")
    public @interface Config {
        /** Device URIs, in devices.get order. */
        @AttributeDefinition(name = "Devices", description = "Device URIs (driver://path?key=value), in "
                + "hal.devices.get order, e.g. local-task")
        String[] hal_device() default {"local-sync"};
    }

    private final DriverRegistry registry;
    private final List<String> uris;
    private List<Device> devices; // guarded by this
    /** Type registrations made by {@link HalModule#create}, one per module created; guarded by this. */
    private final Map<Instance, Integer> registrations = new IdentityHashMap<>();

    @Activate
    public HalModuleComponent(@Reference DriverRegistry registry, Config config) {
        this.registry = registry;
        this.uris = List.of(config.hal_device());
    }

    /** Nothing to do: devices are created on the first {@link #createModule}. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindFactory(DriverFactory factory, Map<String, Object> properties) {
    }

    /** Drops the devices if one of them came from the driver going away. */
    synchronized void unbindFactory(DriverFactory factory, Map<String, Object> properties) {
        Object name = properties.get("hal.driver.name");
        if (devices == null || name == null) {
            return;
        }
        for (String uri : uris) {
            String[] drivers = DeviceUri.parse(uri).driverName().split("\\+");
            if (drivers[drivers.length - 1].equals(name)) {
                releaseDevices();
                return;
            }
        }
    }

    @Override
    public synchronized Module createModule(Instance instance) {
        if (devices == null) {
            devices = createDevices();
        }
        Module module = HalModule.create(instance, devices);
        registrations.merge(instance, 1, Integer::sum);
        return module;
    }

    private List<Device> createDevices() {
        List<Device> created = new ArrayList<>();
        try {
            for (String uri : uris) {
                created.add(registry.createDevice(uri));
            }
        } catch (StatusException e) {
            created.forEach(Device::release);
            throw e.annotate("while creating the devices of the hal module (" + PID + " hal.device=" + uris + ")");
        }
        return List.copyOf(created);
    }

    @Deactivate
    synchronized void deactivate() {
        registrations.forEach((instance, count) -> {
            for (int i = 0; i < count; i++) {
                HalTypes.unregister(instance);
            }
        });
        registrations.clear();
        releaseDevices();
    }

    private void releaseDevices() {
        if (devices != null) {
            devices.forEach(Device::release);
            devices = null;
        }
    }
}
