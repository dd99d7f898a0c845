//! Typed wiring (B-Human's blackboard after `ModuleGraphRunner` resolved it): when a process
//! builds its modules, every input and output is resolved once to a slot, and a tick goes
//! through pointers that were checked then.
//!
//! ```text
//!  plan (names)                      Slots: one boxed value per representation, never moved
//!  ─────────────                     ┌──────────┬──────────┬───────────────────┐
//!  FallStateProvider                 │SensorData│FallState │upper.BallPercept …│
//!    requires SensorData ──────────► └────▲─────┴────▲─────┴───────────────────┘
//!    provides FallState  ────────────────(│)──────────┘   (TypeId checked once, here)
//!                                         │
//!  inbound channel "SensorData" ──decode──┘   outbound: encode from the slot
//! ```
//!
//! Names are looked up, `TypeId`s compared and the pointers made in [`Wiring::new`]; a tick
//! ([`Wiring::update`], [`Wiring::decode`], [`Wiring::encode`]) does no string compare, hash,
//! downcast or allocation in the framework. The invariants the pointers rely on:
//!
//! - a slot's value is allocated once ([`Box::into_raw`]) and freed only when the [`Wiring`]
//!   is dropped, so a pointer into it stays valid for as long as the wiring that holds it;
//! - each pointer's type was checked against the slot's [`TypeId`] when it was made;
//! - a module never reads a slot it writes: the graph builder refuses a module that requires
//!   what it provides (a cycle), and [`Wiring::new`] refuses one that uses it;
//! - every access goes through `&mut Wiring` or `&Wiring`, so no Rust reference into a slot is
//!   alive while a module writes one.
//!
//! The unit tests below also run under Miri, with both aliasing models:
//! `cargo +nightly miri test -p framework --lib wiring` (add `MIRIFLAGS=-Zmiri-tree-borrows`).
//!
//! An input is resolved like this: `X from upper` (in process instance `upper` itself, `X`)
//! → the slot of channel `upper.X`; `X` → the slot of `X` if the process provides it or holds
//! it as a default, else the slot of the one inbound channel carrying `X` (`upper.X` when only
//! `perception.upper` provides it: the graph builder refused the ambiguous case).

use super::graph::{instance_alias, ProcessPlan};
use super::module::DynModule;
use super::representation::{CodecError, RepresentationInfo, RepresentationRegistry};
use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::fmt::Debug;

/// Why a process's modules could not be wired to its plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The plan names a representation the program does not register.
    #[error("unknown representation `{name}`")]
    UnknownRepresentation {
        /// The name.
        name: String,
    },
    /// An input that neither the process nor its inbound channels hold.
    #[error("module `{module}` reads `{input}`, which the plan gives this process no value of")]
    Unresolved {
        /// The module.
        module: &'static str,
        /// The input (`X` or `upper.X`).
        input: String,
    },
    /// The module's Rust type for a representation differs from the registered one.
    #[error("module `{module}` has another Rust type for `{representation}` than the registry")]
    TypeMismatch {
        /// The module.
        module: &'static str,
        /// The representation.
        representation: String,
    },
    /// A module that reads what it writes.
    #[error("module `{module}` reads `{representation}`, which it provides")]
    ReadsOwnOutput {
        /// The module.
        module: &'static str,
        /// The representation.
        representation: String,
    },
    /// The plan has a module provide something it does not declare.
    #[error("module `{module}` does not provide `{representation}`")]
    NotProvided {
        /// The module.
        module: &'static str,
        /// The representation.
        representation: String,
    },
}

/// One value at a stable address.
struct Slot {
    /// The representation name, or the channel name for a value read from an instance.
    name: String,
    info: RepresentationInfo,
    /// From `Box::into_raw`; freed in `Drop for Slots`.
    value: *mut (dyn Any + Send + Sync),
}

/// The values of one process: one per representation it provides, holds as a default or reads
/// from a channel.
pub struct Slots {
    slots: Vec<Slot>,
    by_name: BTreeMap<String, usize>,
}

impl Debug for Slots {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_list()
            .entries(self.slots.iter().map(|slot| &slot.name))
            .finish()
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        for slot in &self.slots {
            // SAFETY: `value` came from `Box::into_raw` in `Slots::add` and is freed only here,
            // once; the pointers the wiring made from it die with the wiring that owns `self`.
            drop(unsafe { Box::from_raw(slot.value) });
        }
    }
}

impl Slots {
    /// The slots of `plan`, each with its default value: what it provides, its defaults, and
    /// one per inbound channel (named by the channel).
    pub fn of_plan(
        plan: &ProcessPlan,
        representations: &RepresentationRegistry,
    ) -> Result<Slots, WireError> {
        let mut slots = Slots {
            slots: Vec::new(),
            by_name: BTreeMap::new(),
        };
        let info = |name: &str| {
            representations
                .get(name)
                .copied()
                .ok_or_else(|| WireError::UnknownRepresentation {
                    name: name.to_owned(),
                })
        };
        for name in plan
            .defaults
            .iter()
            .chain(plan.order.iter().flat_map(|step| &step.representations))
        {
            slots.add(name, info(name)?);
        }
        for inbound in &plan.inbound {
            slots.add(&inbound.channel, info(&inbound.representation)?);
        }
        Ok(slots)
    }

    /// Adds a slot named `name` holding the default of `info` (nothing if it exists); returns
    /// its index.
    fn add(&mut self, name: &str, info: RepresentationInfo) -> usize {
        if let Some(&index) = self.by_name.get(name) {
            return index;
        }
        let value = Box::into_raw(info.new_value());
        self.slots.push(Slot {
            name: name.to_owned(),
            info,
            value,
        });
        self.by_name.insert(name.to_owned(), self.slots.len() - 1);
        self.slots.len() - 1
    }

    /// The index of the slot named `name` (a representation, or a channel `upper.X`).
    pub fn index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The value of the slot named `name` as a `T` (tests and tools).
    pub fn get<T: 'static>(&self, name: &str) -> Option<&T> {
        let slot = &self.slots[self.index(name)?];
        // SAFETY: `value` is live (see `Drop`); the shared borrow of `self` keeps every writer
        // (which needs `&mut Wiring`) away while the reference lives.
        let value: &(dyn Any + Send + Sync) = unsafe { &*slot.value };
        value.downcast_ref()
    }

    fn pointer(&self, index: usize) -> *mut () {
        self.slots[index].value.cast::<()>()
    }

    fn type_id(&self, index: usize) -> TypeId {
        self.slots[index].info.type_id
    }
}

/// A module with its inputs and outputs resolved.
struct WiredModule {
    module: Box<dyn DynModule>,
    /// One per input port, in port order.
    inputs: Box<[*const ()]>,
    /// The providers this process runs, in order: (output port index, slot pointer).
    steps: Box<[(usize, *mut ())]>,
}

/// The modules of a process wired to its slots.
pub struct Wiring {
    modules: Vec<WiredModule>,
    // Declared after `modules`: dropped after the pointers into it.
    slots: Slots,
}

impl Debug for Wiring {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Wiring")
            .field(
                "modules",
                &self
                    .modules
                    .iter()
                    .map(|wired| wired.module.name())
                    .collect::<Vec<_>>(),
            )
            .field("slots", &self.slots)
            .finish()
    }
}

impl Wiring {
    /// Wires `modules` (one per step of `plan.order`, in that order) to `slots`.
    pub fn new(
        plan: &ProcessPlan,
        slots: Slots,
        modules: Vec<Box<dyn DynModule>>,
    ) -> Result<Wiring, WireError> {
        let mut wiring = Wiring {
            modules: Vec::new(),
            slots,
        };
        wiring.rewire(plan, modules)?;
        Ok(wiring)
    }

    /// Replaces the modules (after a panic the module set is built anew); the slots and their
    /// values stay.
    pub fn rewire(
        &mut self,
        plan: &ProcessPlan,
        modules: Vec<Box<dyn DynModule>>,
    ) -> Result<(), WireError> {
        self.modules.clear();
        for (module, step) in modules.into_iter().zip(&plan.order) {
            let (inputs, steps) = self.resolve(plan, &step.representations, module.as_ref())?;
            self.modules.push(WiredModule {
                module,
                inputs,
                steps,
            });
        }
        Ok(())
    }

    /// Puts `module` in the place of module `index` (another provider of the same
    /// representations, switched at run time: `crate::debug_output`), wired to the same slots;
    /// returns the module it replaced. A module whose ports do not fit the slots is refused
    /// and handed back, and the wiring stays as it was.
    #[allow(clippy::type_complexity)]
    pub fn replace_module(
        &mut self,
        plan: &ProcessPlan,
        index: usize,
        module: Box<dyn DynModule>,
    ) -> Result<Box<dyn DynModule>, (WireError, Box<dyn DynModule>)> {
        let Some(step) = plan.order.get(index) else {
            return Err((
                WireError::Unresolved {
                    module: module.name(),
                    input: format!("step {index} of the plan"),
                },
                module,
            ));
        };
        match self.resolve(plan, &step.representations, module.as_ref()) {
            Ok((inputs, steps)) => {
                let old = std::mem::replace(
                    &mut self.modules[index],
                    WiredModule {
                        module,
                        inputs,
                        steps,
                    },
                );
                Ok(old.module)
            }
            Err(error) => Err((error, module)),
        }
    }

    /// Resolves a module's inputs and the outputs `representations` to slot pointers.
    #[allow(clippy::type_complexity)]
    fn resolve(
        &self,
        plan: &ProcessPlan,
        representations: &[String],
        module: &dyn DynModule,
    ) -> Result<(Box<[*const ()]>, Box<[(usize, *mut ())]>), WireError> {
        let own_instance = instance_alias(&plan.name);
        let name = module.name();
        let outputs = module.output_ports();
        let mut steps = Vec::new();
        for representation in representations {
            let Some(port) = outputs
                .iter()
                .position(|output| output.representation == representation)
            else {
                return Err(WireError::NotProvided {
                    module: name,
                    representation: representation.clone(),
                });
            };
            let slot = self
                .slots
                .index(representation)
                .ok_or_else(|| WireError::Unresolved {
                    module: name,
                    input: representation.clone(),
                })?;
            if self.slots.type_id(slot) != outputs[port].type_id {
                return Err(WireError::TypeMismatch {
                    module: name,
                    representation: representation.clone(),
                });
            }
            steps.push((port, self.slots.pointer(slot)));
        }
        let mut inputs = Vec::new();
        for port in module.input_ports() {
            let local = port.instance.is_none() || port.instance == own_instance;
            let input = match port.instance {
                Some(instance) if !local => format!("{instance}.{}", port.representation),
                _ => port.representation.to_owned(),
            };
            let slot = match self.slots.index(&input) {
                Some(slot) => Some(slot),
                None if local => {
                    let mut carrying = plan
                        .inbound
                        .iter()
                        .filter(|inbound| inbound.representation == port.representation);
                    match (carrying.next(), carrying.next()) {
                        (Some(inbound), None) => self.slots.index(&inbound.channel),
                        _ => None,
                    }
                }
                None => None,
            };
            let slot = slot.ok_or_else(|| WireError::Unresolved {
                module: name,
                input: input.clone(),
            })?;
            if self.slots.type_id(slot) != port.type_id {
                return Err(WireError::TypeMismatch {
                    module: name,
                    representation: input,
                });
            }
            let pointer = self.slots.pointer(slot);
            if steps.iter().any(|&(_, output)| output == pointer) {
                return Err(WireError::ReadsOwnOutput {
                    module: name,
                    representation: input,
                });
            }
            inputs.push(pointer.cast_const());
        }
        Ok((inputs.into_boxed_slice(), steps.into_boxed_slice()))
    }

    /// Calls `visit` with each module, in execution order.
    pub fn for_each_module(&mut self, mut visit: impl FnMut(&mut dyn DynModule)) {
        for wired in &mut self.modules {
            visit(wired.module.as_mut());
        }
    }

    /// The number of modules.
    pub fn module_count(&self) -> usize {
        self.modules.len()
    }

    /// The name of module `module`.
    pub fn module_name(&self, module: usize) -> &'static str {
        self.modules[module].module.name()
    }

    /// The names of all modules, in execution order.
    pub fn module_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.modules.iter().map(|wired| wired.module.name())
    }

    /// Runs every provider of module `module` that the plan gives it, in order.
    pub fn update(&mut self, module: usize) {
        let wired = &mut self.modules[module];
        for &(port, output) in wired.steps.iter() {
            // SAFETY: the pointers were made in `rewire` from slots of `self.slots`, which live
            // as long as `self` (see the module documentation); their types were checked there
            // against the module's ports; no input is this module's output (checked there);
            // `&mut self` keeps every other access to the slots out for the call.
            unsafe { wired.module.update_wired(port, &wired.inputs, output) };
        }
    }

    /// Gives module `module` its parameters from `config` ([`DynModule::with_parameters`]: a
    /// module that keeps its state takes them in place; any other is dropped and built anew,
    /// wired to the same slots). Parameters that fail to load leave the module as it was.
    ///
    /// A panic while the module is built leaves this module out of the wiring (fewer modules
    /// than the plan's steps): the caller then builds the module set again, as after any panic
    /// in a module ([`Wiring::rewire`]).
    pub fn set_parameters(
        &mut self,
        module: usize,
        config: &config::Config,
    ) -> Result<(), Box<config::ConfigError>> {
        let mut wired = self.modules.remove(module);
        // The ports are the module type's, so the new module reads and writes the same slots.
        let (module_box, result) = match wired.module.with_parameters(config) {
            Ok(new) => (new, Ok(())),
            Err(refused) => (refused.module, Err(refused.error)),
        };
        wired.module = module_box;
        self.modules.insert(module, wired);
        result
    }

    /// The slots.
    pub fn slots(&self) -> &Slots {
        &self.slots
    }

    /// Decodes channel bytes into slot `slot` (an index from [`Slots::index`]).
    pub fn decode(&mut self, slot: usize, bytes: &[u8]) -> Result<(), CodecError> {
        let slot = &self.slots.slots[slot];
        // SAFETY: the slot's value is live and of `info`'s type (both made in `Slots::add`);
        // `&mut self` keeps every other access out for the call.
        unsafe { slot.info.decode_at(bytes, slot.value.cast::<()>()) }
    }

    /// Encodes slot `slot` for a channel into `out`.
    pub fn encode(&self, slot: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let slot = &self.slots.slots[slot];
        // SAFETY: the slot's value is live and of `info`'s type; writers need `&mut self`, so
        // nobody writes during the call.
        unsafe {
            slot.info
                .encode_at(slot.value.cast_const().cast::<()>(), out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Inbound, ProviderStep};
    use crate::Update;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    pub struct Count {
        value: u64,
    }
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    pub struct Double {
        value: u64,
    }
    types::representations!(Count, Double);

    mod impostor {
        //! Another type named `Count`.
        #[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct Count {
            pub text: String,
        }
        types::representations!(Count);
    }

    #[derive(Debug)]
    struct Doubler;
    crate::module! {
        Doubler {
            inputs: DoublerInputs,
            requires: { count: Count },
            uses: {},
            provides: { Double },
        }
    }
    impl Doubler {
        fn new(_: crate::NoParameters) -> Self {
            Doubler
        }
    }
    impl Update<Double> for Doubler {
        fn update(&mut self, inputs: &DoublerInputs, double: &mut Double) {
            double.value = inputs.count.value * 2;
        }
    }

    #[derive(Debug)]
    struct Echo;
    crate::module! {
        Echo {
            inputs: EchoInputs,
            requires: {},
            uses: { double: Double },
            provides: { Double },
        }
    }
    impl Echo {
        fn new(_: crate::NoParameters) -> Self {
            Echo
        }
    }
    impl Update<Double> for Echo {
        fn update(&mut self, inputs: &EchoInputs, double: &mut Double) {
            double.value = inputs.double.value;
        }
    }

    fn plan(module: &str) -> ProcessPlan {
        ProcessPlan {
            name: "process".into(),
            kind: config::ProcessKind::Cognition,
            order: vec![ProviderStep {
                module: module.into(),
                representations: vec!["Double".into()],
            }],
            inbound: vec![Inbound {
                channel: "Count".into(),
                representation: "Count".into(),
            }],
            outbound: vec!["Double".into()],
            outbound_read: vec![],
            triggers: vec![],
            defaults: vec![],
        }
    }

    fn module<M: crate::Module<Parameters = crate::NoParameters>>() -> Vec<Box<dyn DynModule>> {
        vec![Box::new(M::construct(crate::NoParameters {}))]
    }

    /// `modules` wired into `plan`, the slots typed from a registry of the representations above.
    fn wire(plan: &ProcessPlan, modules: Vec<Box<dyn DynModule>>) -> Result<Wiring, WireError> {
        let registry = RepresentationRegistry::default()
            .with::<Count>()
            .with::<Double>()
            .with::<Count4>();
        let slots = Slots::of_plan(plan, &registry).unwrap();
        Wiring::new(plan, slots, modules)
    }

    /// Decodes a `Count` of `value` into the `Count` slot, as its channel does.
    fn feed(wiring: &mut Wiring, value: u64) {
        let count = wiring.slots().index("Count").unwrap();
        let mut bytes = Vec::new();
        ipc::channel::encode(&Count { value }, &mut bytes).unwrap();
        wiring.decode(count, &bytes).unwrap();
    }

    #[test]
    fn a_tick_goes_through_the_slots_and_channels_decode_into_them() {
        let mut wiring = wire(&plan("Doubler"), module::<Doubler>()).unwrap();
        feed(&mut wiring, 21);
        wiring.update(0);
        assert_eq!(wiring.slots().get::<Double>("Double").unwrap().value, 42);
        // Bad bytes leave the old value.
        let count = wiring.slots().index("Count").unwrap();
        assert!(wiring.decode(count, b"\xc1").is_err());
        assert_eq!(wiring.slots().get::<Count>("Count").unwrap().value, 21);
        let double = wiring.slots().index("Double").unwrap();
        let mut bytes = Vec::new();
        wiring.encode(double, &mut bytes).unwrap();
        let decoded: Double = ipc::channel::decode(&bytes).unwrap();
        assert_eq!(decoded.value, 42);
    }

    #[derive(Debug)]
    struct Tripler;
    crate::module! {
        Tripler {
            inputs: TriplerInputs,
            requires: { count: Count },
            uses: {},
            provides: { Double },
        }
    }
    impl Tripler {
        fn new(_: crate::NoParameters) -> Self {
            Tripler
        }
    }
    impl Update<Double> for Tripler {
        fn update(&mut self, inputs: &TriplerInputs, double: &mut Double) {
            double.value = inputs.count.value * 3;
        }
    }

    #[test]
    fn an_alternative_provider_takes_the_place_and_a_misfit_is_handed_back() {
        let plan = plan("Doubler");
        let mut wiring = wire(&plan, module::<Doubler>()).unwrap();
        feed(&mut wiring, 21);
        let tripler = module::<Tripler>().pop().unwrap();
        let Ok(old) = wiring.replace_module(&plan, 0, tripler) else {
            panic!("the Tripler fits Doubler's place");
        };
        assert_eq!(old.name(), "Doubler");
        assert_eq!(wiring.module_names().collect::<Vec<_>>(), ["Tripler"]);
        wiring.update(0);
        assert_eq!(wiring.slots().get::<Double>("Double").unwrap().value, 63);
        // Echo reads what it would write: refused, handed back, the Tripler stays.
        let echo = module::<Echo>().pop().unwrap();
        let Err((error, back)) = wiring.replace_module(&plan, 0, echo) else {
            panic!("Echo is refused");
        };
        assert!(matches!(error, WireError::ReadsOwnOutput { .. }), "{error}");
        assert_eq!(back.name(), "Echo");
        assert_eq!(wiring.module_name(0), "Tripler");
        assert!(wiring.replace_module(&plan, 5, back).is_err(), "no step 5");
    }

    #[derive(Debug)]
    struct Quadrupler;
    crate::module! {
        Quadrupler {
            inputs: QuadruplerInputs,
            requires: { double: Double, count: Count },
            uses: {},
            provides: { Count4 },
        }
    }
    impl Quadrupler {
        fn new(_: crate::NoParameters) -> Self {
            Quadrupler
        }
    }
    impl Update<Count4> for Quadrupler {
        fn update(&mut self, inputs: &QuadruplerInputs, output: &mut Count4) {
            output.value = inputs.double.value + 2 * inputs.count.value;
        }
    }
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    pub struct Count4 {
        value: u64,
    }
    types::representations!(Count4);

    #[test]
    fn a_chain_reads_what_the_module_before_wrote_and_survives_a_rewire() {
        let mut plan = plan("Doubler");
        plan.order.push(ProviderStep {
            module: "Quadrupler".into(),
            representations: vec!["Count4".into()],
        });
        let modules = || {
            let mut modules = module::<Doubler>();
            modules.extend(module::<Quadrupler>());
            modules
        };
        let mut wiring = wire(&plan, modules()).unwrap();
        for value in 1..=3 {
            feed(&mut wiring, value);
            wiring.update(0);
            wiring.update(1);
            assert_eq!(
                wiring.slots().get::<Count4>("Count4").unwrap().value,
                4 * value
            );
        }
        // A rebuilt module set is wired to the same slots; the values stay.
        wiring.rewire(&plan, Vec::new()).unwrap();
        wiring.rewire(&plan, modules()).unwrap();
        assert_eq!(wiring.slots().get::<Count4>("Count4").unwrap().value, 12);
        wiring.update(1);
        assert_eq!(wiring.slots().get::<Count4>("Count4").unwrap().value, 12);
    }

    #[test]
    fn a_module_that_reads_what_it_writes_is_refused() {
        let error = wire(&plan("Echo"), module::<Echo>()).unwrap_err();
        assert_eq!(
            error,
            WireError::ReadsOwnOutput {
                module: "Echo",
                representation: "Double".into()
            }
        );
    }

    #[test]
    fn another_rust_type_under_the_same_name_is_refused_at_wiring() {
        let registry = RepresentationRegistry::default()
            .with::<impostor::Count>()
            .with::<Double>();
        let plan = plan("Doubler");
        let slots = Slots::of_plan(&plan, &registry).unwrap();
        let error = Wiring::new(&plan, slots, module::<Doubler>()).unwrap_err();
        assert_eq!(
            error,
            WireError::TypeMismatch {
                module: "Doubler",
                representation: "Count".into()
            }
        );
        assert!(error.to_string().contains("another Rust type"), "{error}");
    }
}
