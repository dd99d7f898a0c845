//! Modules: what they declare, how they are built, and the [`module!`](crate::module) macro
//! that declares one in one place.
//!
//! ```ignore
//! use framework::{module, Update};
//!
//! pub struct StandMotion { stiffness: f32 }
//!
//! framework::module! {
//!     StandMotion {
//!         inputs: StandMotionInputs,              // the generated struct of typed inputs
//!         parameters: StandMotionParameters,      // loaded from StandMotion.toml
//!         requires: { sensor_data: SensorData, motion_request: MotionRequest },
//!         uses: { fall_state: FallState },        // may be from the previous tick
//!         provides: { JointRequest },
//!     }
//! }
//!
//! impl StandMotion {
//!     fn new(parameters: StandMotionParameters) -> Self { StandMotion { stiffness: parameters.stiffness } }
//! }
//!
//! impl Update<JointRequest> for StandMotion {
//!     fn update(&mut self, inputs: &StandMotionInputs, joint_request: &mut JointRequest) {
//!         // inputs.sensor_data, inputs.motion_request, inputs.fall_state are typed references
//!     }
//! }
//! ```
//!
//! Options of the declaration, in this order:
//!
//! - `parameters: P,` — `P` is read from `<Module>.toml`; or `loaded_parameters: P,` — `P` is
//!   loaded by its [`LoadParameters`] implementation (a parameter file and more, e.g. the keyframe
//!   files under `motions/`); neither: the module has no parameters. How a module's parameters
//!   are loaded is part of its declaration: the registration only names the module.
//! - `set_parameters: method,` — new parameters at run time (`cortex set`, `cortex reload`) go
//!   to the module's own `fn method(&mut self, parameters: P)`, which keeps its state; without
//!   it the module is built anew from them ([`Module::set_parameters`]: its state is lost).
//! - an input may name the process instance it comes from, as HULKs' perception inputs do:
//!   `uses: { ball_upper from upper: BallPercept, ball_lower from lower: BallPercept }` reads the
//!   channels `upper.BallPercept` and `lower.BallPercept` (the processes `perception.upper` and
//!   `perception.lower`).
//!
//! The macro generates the inputs struct, the [`Module`] implementation with the declaration
//! (the graph builder's input) and the dispatch from a provider's index to the right [`Update`]
//! implementation. Module code never looks anything up by string; the runtime resolves every
//! input and output to a typed slot once ([`crate::wiring`]) and a tick goes through those.
//!
//! Parameters state their ranges by implementing [`config::Validate`]; they are checked right
//! after they are read, both when a process builds the module and when `cortex check` (and the
//! supervisor before it starts anything) [checks](ModuleEntry::check) the configuration, through
//! the same function, so that the two cannot disagree.

use super::blackboard::{Blackboard, BlackboardError};
use config::Validate;
use serde::de::DeserializeOwned;
use std::any::TypeId;
use std::collections::BTreeMap;
use std::fmt::Debug;

/// An input read from a named process instance (`ball_upper from upper: BallPercept`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QualifiedInput {
    /// The instance alias (`upper` for the process `perception.upper`).
    pub instance: &'static str,
    /// The representation.
    pub representation: &'static str,
    /// Whether it is required (updated before the module runs) rather than used.
    pub required: bool,
}

/// What a module requires (updated before it runs, in this tick), uses (whatever value is
/// there, possibly from the previous tick; for cycles) and provides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The module's name.
    pub name: &'static str,
    /// Representations that must be updated before the module runs.
    pub requires: Vec<&'static str>,
    /// Representations read without an ordering constraint.
    pub uses: Vec<&'static str>,
    /// Representations read from a named process instance (not in `requires` or `uses`).
    pub qualified: Vec<QualifiedInput>,
    /// Representations the module can provide.
    pub provides: Vec<&'static str>,
}

/// One input of a module as the wiring sees it: in the order of the generated inputs struct
/// (requires, then uses, each in declaration order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputPort {
    /// The representation.
    pub representation: &'static str,
    /// The instance it is read from, if the declaration names one.
    pub instance: Option<&'static str>,
    /// The Rust type the module reads it as (checked against the slot once, at wiring).
    pub type_id: TypeId,
}

/// One output of a module: in the order of its `provides`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputPort {
    /// The representation.
    pub representation: &'static str,
    /// The Rust type the module writes (checked against the slot once, at wiring).
    pub type_id: TypeId,
}

/// The parameters of a module that has none (no file is loaded).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoParameters {}

impl Validate for NoParameters {
    fn validate(&self) -> Result<(), config::Invalid> {
        Ok(())
    }
}

/// Gives a module its generated inputs struct.
pub trait HasInputs {
    /// The struct of typed references to the required and used representations.
    type Inputs<'a>;
}

/// A module's provider of `T`: one per provided representation.
pub trait Update<T>: HasInputs {
    /// Computes `output` from `inputs` (and the module's own state).
    fn update(&mut self, inputs: &Self::Inputs<'_>, output: &mut T);
}

/// A module, as implemented by [`module!`](crate::module).
pub trait Module: Send + 'static {
    /// Its parameters, with their ranges.
    type Parameters: DeserializeOwned + Validate + Send;
    /// Its name (the type name): in `processes.toml` and the parameter file `<NAME>.toml`.
    const NAME: &'static str;
    /// The parameters of a module without parameters (`NoParameters`); `None` for a module
    /// that reads parameters (from `<NAME>.toml`, or by [`LoadParameters`]).
    fn parameters_without_file() -> Option<Self::Parameters>;
    /// Loads and checks its parameters as its declaration says (`<NAME>.toml`, its
    /// [`LoadParameters`], or none).
    fn load_parameters(config: &config::Config) -> Result<Self::Parameters, config::ConfigError>;
    /// Its declaration.
    fn declaration() -> Declaration;
    /// Its inputs, in the order [`Module::update_wired`] takes their pointers.
    fn input_ports() -> Vec<InputPort>;
    /// Its outputs, in the order of `provides` (the index [`Module::update_wired`] takes).
    fn output_ports() -> Vec<OutputPort>;
    /// Builds it.
    fn construct(parameters: Self::Parameters) -> Self;
    /// Takes new parameters while the process runs (`cortex set`, `cortex reload`), at the start
    /// of a tick. The default builds the module anew from them: **its state is lost** (a motion
    /// in progress, a counter, a filter). A module whose state matters names a method of its own
    /// with the `set_parameters:` option of [`module!`](crate::module), which keeps what should be
    /// kept. When the default applies, the runtime drops the old module before it builds the
    /// new one (through [`DynModule::with_parameters`]), so that a socket, a device or an
    /// interpreter the old one holds is free again.
    fn set_parameters(&mut self, parameters: Self::Parameters)
    where
        Self: Sized,
    {
        *self = Self::construct(parameters);
    }
    /// Whether [`Module::set_parameters`] keeps the module's state (the module names its own
    /// method with `set_parameters:`), or builds it anew (the default).
    fn keeps_state_on_new_parameters() -> bool {
        false
    }
    /// Runs its provider number `provided` (an index into [`Module::output_ports`]) on values
    /// the wiring resolved once. Does nothing for an index it does not have.
    ///
    /// # Safety
    ///
    /// `inputs` holds one pointer per [`Module::input_ports`] entry, in that order, each to a
    /// live value of that entry's type; `output` points to a live value of the type of output
    /// `provided`. No input points to `output`, and nothing else reads or writes any of these
    /// values during the call. [`crate::wiring`] checks all of this once, when it wires the
    /// module.
    unsafe fn update_wired(&mut self, provided: usize, inputs: &[*const ()], output: *mut ());
    /// Runs its provider of `representation` on `blackboard`, found by name (for tests and tools
    /// that hold a [`Blackboard`]; the runtime goes through [`Module::update_wired`]). Returns
    /// `false` if the module does not provide it.
    fn update_named(
        &mut self,
        representation: &str,
        blackboard: &mut Blackboard,
    ) -> Result<bool, BlackboardError>;
}

/// A module that kept its old parameters because the new ones did not load
/// ([`DynModule::with_parameters`]).
pub struct ParametersRefused {
    /// The module, as it was.
    pub module: Box<dyn DynModule>,
    /// Why the parameters did not load.
    pub error: Box<config::ConfigError>,
}

impl Debug for ParametersRefused {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ParametersRefused")
            .field("module", &self.module.name())
            .field("error", &self.error)
            .finish()
    }
}

/// A module behind a pointer, as the runtime holds it.
pub trait DynModule: Send {
    /// The module's name.
    fn name(&self) -> &'static str;
    /// See [`Module::input_ports`].
    fn input_ports(&self) -> Vec<InputPort>;
    /// See [`Module::output_ports`].
    fn output_ports(&self) -> Vec<OutputPort>;
    /// See [`Module::update_wired`].
    ///
    /// # Safety
    ///
    /// As for [`Module::update_wired`].
    unsafe fn update_wired(&mut self, provided: usize, inputs: &[*const ()], output: *mut ());
    /// See [`Module::update_named`].
    fn update_named(
        &mut self,
        representation: &str,
        blackboard: &mut Blackboard,
    ) -> Result<bool, BlackboardError>;
    /// Loads the module's parameters from `config` as its declaration says and gives them to
    /// it ([`Module::set_parameters`]); a module that does not keep its state is dropped before
    /// its successor is built. Parameters that fail to load leave the module as it was: it comes
    /// back with the error.
    fn with_parameters(
        self: Box<Self>,
        config: &config::Config,
    ) -> Result<Box<dyn DynModule>, ParametersRefused>;
    /// The module as `Any`, for code that knows a module's type (a standby's idle work).
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

impl<M: Module> DynModule for M {
    fn with_parameters(
        self: Box<Self>,
        config: &config::Config,
    ) -> Result<Box<dyn DynModule>, ParametersRefused> {
        match M::load_parameters(config) {
            Err(error) => Err(ParametersRefused {
                module: self,
                error: Box::new(error),
            }),
            Ok(parameters) if M::keeps_state_on_new_parameters() => {
                let mut module = self;
                module.set_parameters(parameters);
                Ok(module)
            }
            Ok(parameters) => {
                drop(self);
                Ok(Box::new(M::construct(parameters)))
            }
        }
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
    fn name(&self) -> &'static str {
        M::NAME
    }
    fn input_ports(&self) -> Vec<InputPort> {
        M::input_ports()
    }
    fn output_ports(&self) -> Vec<OutputPort> {
        M::output_ports()
    }
    unsafe fn update_wired(&mut self, provided: usize, inputs: &[*const ()], output: *mut ()) {
        // SAFETY: the caller keeps the contract of `DynModule::update_wired`, which is the one of
        // `Module::update_wired`.
        unsafe { Module::update_wired(self, provided, inputs, output) }
    }
    fn update_named(
        &mut self,
        representation: &str,
        blackboard: &mut Blackboard,
    ) -> Result<bool, BlackboardError> {
        Module::update_named(self, representation, blackboard)
    }
}

/// Parameters that need more of the configuration than `<Module>.toml`, e.g. a parameter file
/// and the keyframe files under `motions/` along the search path. A module whose parameters
/// implement it declares them with `loaded_parameters:` in [`module!`](crate::module).
pub trait LoadParameters: Sized {
    /// Loads the parameters of `module` from `config` and checks them; every bad file or value
    /// is an error naming the file, the line and the key.
    fn load(config: &config::Config, module: &str) -> Result<Self, config::ConfigError>;
}

/// The loaders the code generated by [`module!`](crate::module) calls.
#[doc(hidden)]
pub mod loaders {
    use super::{LoadParameters, NoParameters};
    use config::Validate;
    use serde::de::DeserializeOwned;

    /// `<module>.toml`, checked.
    pub fn from_file<P: DeserializeOwned + Validate>(
        config: &config::Config,
        module: &str,
    ) -> Result<P, config::ConfigError> {
        config.validated_parameters(module)
    }

    /// By the parameters' own [`LoadParameters`] (which checks the ranges with the line that
    /// set each value, through `Config::validated_parameters`).
    pub fn loaded<P: LoadParameters>(
        config: &config::Config,
        module: &str,
    ) -> Result<P, config::ConfigError> {
        P::load(config, module)
    }

    /// No parameters.
    pub fn none(
        _config: &config::Config,
        _module: &str,
    ) -> Result<NoParameters, config::ConfigError> {
        Ok(NoParameters {})
    }

    pub use config::{Config, ConfigError};
}

type Constructor = fn(&config::Config) -> Result<Box<dyn DynModule>, config::ConfigError>;
type Checker = fn(&config::Config) -> Result<(), config::ConfigError>;

/// A module known to the program: its declaration and how to build it from configuration.
#[derive(Clone)]
pub struct ModuleEntry {
    /// Its declaration.
    pub declaration: Declaration,
    construct: Constructor,
    check: Checker,
    has_parameters: bool,
}

impl Debug for ModuleEntry {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.declaration.fmt(formatter)
    }
}

/// Builds a module, loading its parameters as its declaration says.
pub fn construct<M: Module>(config: &config::Config) -> Result<M, config::ConfigError> {
    Ok(M::construct(M::load_parameters(config)?))
}

impl ModuleEntry {
    /// The entry of `M`.
    pub fn of<M: Module>() -> ModuleEntry {
        ModuleEntry {
            declaration: M::declaration(),
            construct: |config| Ok(Box::new(construct::<M>(config)?)),
            check: |config| M::load_parameters(config).map(drop),
            has_parameters: M::parameters_without_file().is_none(),
        }
    }

    /// Builds the module from configuration.
    pub fn construct(
        &self,
        config: &config::Config,
    ) -> Result<Box<dyn DynModule>, config::ConfigError> {
        (self.construct)(config)
    }

    /// Loads and checks the module's parameters exactly as [`ModuleEntry::construct`] does,
    /// without building the module (which may start an interpreter or open files).
    pub fn check(&self, config: &config::Config) -> Result<(), config::ConfigError> {
        (self.check)(config)
    }

    /// Whether the module reads parameters (a `<NAME>.toml`, overrides `--set NAME.key=…`).
    pub fn has_parameters(&self) -> bool {
        self.has_parameters
    }
}

/// All modules a program knows, by name.
#[derive(Debug, Clone, Default)]
pub struct ModuleRegistry {
    by_name: BTreeMap<&'static str, ModuleEntry>,
}

impl ModuleRegistry {
    /// A registry of these modules.
    pub fn new(entries: impl IntoIterator<Item = ModuleEntry>) -> ModuleRegistry {
        ModuleRegistry {
            by_name: entries
                .into_iter()
                .map(|entry| (entry.declaration.name, entry))
                .collect(),
        }
    }

    /// Adds `M` (its declaration says how its parameters are loaded).
    pub fn with<M: Module>(mut self) -> Self {
        self.by_name.insert(M::NAME, ModuleEntry::of::<M>());
        self
    }

    /// Adds all entries of `other`.
    pub fn extend(&mut self, other: ModuleRegistry) {
        self.by_name.extend(other.by_name);
    }

    /// The module named `name`.
    pub fn get(&self, name: &str) -> Option<&ModuleEntry> {
        self.by_name.get(name)
    }

    /// All names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.by_name.keys().copied()
    }
}

/// Declares a module in one place; see the [module documentation](crate::module).
#[macro_export]
macro_rules! module {
    (
        $module:ident {
            inputs: $inputs:ident,
            $(parameters: $parameters:ty,)?
            $(loaded_parameters: $loaded_parameters:ty,)?
            $(set_parameters: $setter:ident,)?
            requires: { $($required:ident $(from $required_instance:ident)? : $required_type:ty),* $(,)? },
            uses: { $($used:ident $(from $used_instance:ident)? : $used_type:ty),* $(,)? },
            provides: { $($provided_type:ty),* $(,)? } $(,)?
        }
    ) => {
        /// The typed inputs of the module: references to the representations it requires and
        /// uses, resolved once when the process wires its modules.
        #[derive(Debug)]
        pub struct $inputs<'a> {
            $(
                #[doc = concat!("Required: updated before this module runs.")]
                pub $required: &'a $required_type,
            )*
            $(
                #[doc = concat!("Used: may be from the previous tick.")]
                pub $used: &'a $used_type,
            )*
            #[doc(hidden)]
            pub _lifetime: ::std::marker::PhantomData<&'a ()>,
        }

        impl<'a> $inputs<'a> {
            /// Takes the inputs out of a blackboard.
            #[allow(dead_code)]
            fn from_blackboard(
                blackboard: &'a $crate::Blackboard,
            ) -> ::std::result::Result<Self, $crate::BlackboardError> {
                Ok($inputs {
                    $($required: $crate::__module_input_from_blackboard!(blackboard, $required_type $(, $required_instance)?)?,)*
                    $($used: $crate::__module_input_from_blackboard!(blackboard, $used_type $(, $used_instance)?)?,)*
                    _lifetime: ::std::marker::PhantomData,
                })
            }
        }

        impl $crate::HasInputs for $module {
            type Inputs<'a> = $inputs<'a>;
        }

        impl $crate::Module for $module {
            type Parameters = $crate::__module_parameters!($($parameters)? ; $($loaded_parameters)?);
            const NAME: &'static str = stringify!($module);

            fn parameters_without_file() -> Option<Self::Parameters> {
                $crate::__module_parameters_without_file!($($parameters)? ; $($loaded_parameters)?)
            }

            fn load_parameters(
                config: &$crate::module_loaders::Config,
            ) -> ::std::result::Result<Self::Parameters, $crate::module_loaders::ConfigError> {
                $crate::__module_parameters_loader!($($parameters)? ; $($loaded_parameters)?)(config, stringify!($module))
            }

            fn declaration() -> $crate::Declaration {
                use $crate::Representation;
                #[allow(unused_mut)]
                let mut declaration = $crate::Declaration {
                    name: stringify!($module),
                    requires: vec![],
                    uses: vec![],
                    qualified: vec![],
                    provides: vec![$(<$provided_type>::NAME),*],
                };
                $($crate::__module_declare_input!(declaration, requires, true, $required_type $(, $required_instance)?);)*
                $($crate::__module_declare_input!(declaration, uses, false, $used_type $(, $used_instance)?);)*
                declaration
            }

            fn input_ports() -> Vec<$crate::InputPort> {
                use $crate::Representation;
                vec![
                    $($crate::InputPort {
                        representation: <$required_type>::NAME,
                        instance: $crate::__module_instance!($($required_instance)?),
                        type_id: ::std::any::TypeId::of::<$required_type>(),
                    },)*
                    $($crate::InputPort {
                        representation: <$used_type>::NAME,
                        instance: $crate::__module_instance!($($used_instance)?),
                        type_id: ::std::any::TypeId::of::<$used_type>(),
                    },)*
                ]
            }

            fn output_ports() -> Vec<$crate::OutputPort> {
                use $crate::Representation;
                vec![$($crate::OutputPort {
                    representation: <$provided_type>::NAME,
                    type_id: ::std::any::TypeId::of::<$provided_type>(),
                }),*]
            }

            fn construct(parameters: Self::Parameters) -> Self {
                $module::new(parameters)
            }

            $(
                fn set_parameters(&mut self, parameters: Self::Parameters) {
                    $module::$setter(self, parameters)
                }

                fn keeps_state_on_new_parameters() -> bool {
                    true
                }
            )?

            #[allow(unused_variables, unused_mut, unused_assignments)]
            unsafe fn update_wired(
                &mut self,
                provided: usize,
                inputs: &[*const ()],
                output: *mut (),
            ) {
                let mut index = 0usize;
                let inputs = $inputs {
                    $($required: {
                        let pointer = inputs[index].cast::<$required_type>();
                        index += 1;
                        // SAFETY: the caller passes, in `input_ports` order, pointers to live
                        // values of these types that nobody writes during the call.
                        unsafe { &*pointer }
                    },)*
                    $($used: {
                        let pointer = inputs[index].cast::<$used_type>();
                        index += 1;
                        // SAFETY: as for the required inputs above.
                        unsafe { &*pointer }
                    },)*
                    _lifetime: ::std::marker::PhantomData,
                };
                let mut index = 0usize;
                $(
                    if provided == index {
                        // SAFETY: the caller passes a pointer to a live value of output
                        // `provided`'s type that no input points to and nobody else touches
                        // during the call.
                        let output = unsafe { &mut *output.cast::<$provided_type>() };
                        <Self as $crate::Update<$provided_type>>::update(self, &inputs, output);
                        return;
                    }
                    index += 1;
                )*
            }

            #[allow(unused_variables)]
            fn update_named(
                &mut self,
                representation: &str,
                blackboard: &mut $crate::Blackboard,
            ) -> ::std::result::Result<bool, $crate::BlackboardError> {
                use $crate::Representation;
                $(
                    if representation == <$provided_type>::NAME {
                        let mut output = blackboard.take::<$provided_type>()?;
                        let result = (|| {
                            let inputs = $inputs::from_blackboard(blackboard)?;
                            <Self as $crate::Update<$provided_type>>::update(self, &inputs, &mut output);
                            Ok(())
                        })();
                        blackboard.insert(output);
                        return result.map(|()| true);
                    }
                )*
                Ok(false)
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __module_parameters {
    (;) => {
        $crate::NoParameters
    };
    ($parameters:ty ;) => {
        $parameters
    };
    (; $loaded:ty) => {
        $loaded
    };
    ($parameters:ty ; $loaded:ty) => {
        compile_error!("a module declares `parameters:` (its <Module>.toml) or `loaded_parameters:` (its LoadParameters), not both")
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __module_parameters_without_file {
    (;) => {
        Some($crate::NoParameters {})
    };
    ($($anything:tt)+) => {
        None
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __module_parameters_loader {
    (;) => {
        $crate::module_loaders::none
    };
    ($parameters:ty ;) => {
        $crate::module_loaders::from_file::<$parameters>
    };
    (; $loaded:ty) => {
        $crate::module_loaders::loaded::<$loaded>
    };
    ($parameters:ty ; $loaded:ty) => {
        $crate::module_loaders::none
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __module_instance {
    () => {
        None
    };
    ($instance:ident) => {
        Some(stringify!($instance))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __module_declare_input {
    ($declaration:ident, $list:ident, $required:expr, $type:ty) => {
        $declaration.$list.push(<$type>::NAME)
    };
    ($declaration:ident, $list:ident, $required:expr, $type:ty, $instance:ident) => {
        $declaration.qualified.push($crate::QualifiedInput {
            instance: stringify!($instance),
            representation: <$type>::NAME,
            required: $required,
        })
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __module_input_from_blackboard {
    ($blackboard:ident, $type:ty) => {
        $blackboard.get::<$type>()
    };
    ($blackboard:ident, $type:ty, $instance:ident) => {
        $blackboard.get_from::<$type>(stringify!($instance))
    };
}
