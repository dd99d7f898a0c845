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
//! The macro generates the inputs struct, the [`Module`] implementation with the declaration
//! (the graph builder's input) and the dispatch from a representation name to the right
//! [`Update`] implementation. Module code never looks anything up by string.
//!
//! Parameters state their ranges by implementing [`config::Validate`]; they are checked right
//! after they are read, both when a process builds the module and when `cortex check` (and the
//! supervisor before it starts anything) [checks](ModuleEntry::check) the configuration, through
//! the same function, so that the two cannot disagree.

use super::blackboard::{Blackboard, BlackboardError};
use config::Validate;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::fmt::Debug;

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
    /// Representations the module can provide.
    pub provides: Vec<&'static str>,
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
    /// The parameters of a module without a parameter file (`NoParameters`); `None` for a
    /// module whose parameters are loaded from `<NAME>.toml`.
    fn parameters_without_file() -> Option<Self::Parameters>;
    /// Its declaration.
    fn declaration() -> Declaration;
    /// Builds it.
    fn construct(parameters: Self::Parameters) -> Self;
    /// Runs its provider of `representation` on `blackboard`. Returns `false` if the module does
    /// not provide it.
    fn update_named(
        &mut self,
        representation: &str,
        blackboard: &mut Blackboard,
    ) -> Result<bool, BlackboardError>;
}

/// A module behind a pointer, as the runtime holds it.
pub trait DynModule: Send {
    /// The module's name.
    fn name(&self) -> &'static str;
    /// See [`Module::update_named`].
    fn update_named(
        &mut self,
        representation: &str,
        blackboard: &mut Blackboard,
    ) -> Result<bool, BlackboardError>;
}

impl<M: Module> DynModule for M {
    fn name(&self) -> &'static str {
        M::NAME
    }
    fn update_named(
        &mut self,
        representation: &str,
        blackboard: &mut Blackboard,
    ) -> Result<bool, BlackboardError> {
        Module::update_named(self, representation, blackboard)
    }
}

/// Where a module's parameters come from (the configuration, or a test).
pub trait ParameterSource {
    /// Loads `<module>.toml` (merged along the search path) as `T` and checks its ranges.
    fn parameters<T: DeserializeOwned + Validate>(
        &self,
        module: &str,
    ) -> Result<T, config::ConfigError>;
}

impl ParameterSource for config::Config {
    fn parameters<T: DeserializeOwned + Validate>(
        &self,
        module: &str,
    ) -> Result<T, config::ConfigError> {
        config::Config::validated_parameters(self, module)
    }
}

/// Parameters that need more of the configuration than `<Module>.toml`, e.g. a parameter file
/// and the keyframe files under `motions/` along the search path. A module whose parameters
/// implement it is registered with [`ModuleEntry::loading`] / [`ModuleRegistry::with_loading`].
pub trait LoadParameters: Sized {
    /// Loads the parameters of `module` from `config` and checks them; every bad file or value
    /// is an error naming the file, the line and the key.
    fn load(config: &config::Config, module: &str) -> Result<Self, config::ConfigError>;
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

/// The checked parameters of `M`: `<NAME>.toml`, or none for a module without parameters.
fn parameters_of<M: Module>(
    source: &impl ParameterSource,
) -> Result<M::Parameters, config::ConfigError> {
    match M::parameters_without_file() {
        Some(parameters) => Ok(parameters),
        None => source.parameters::<M::Parameters>(M::NAME),
    }
}

/// The checked parameters of `M`, loaded by [`LoadParameters`].
fn loaded_parameters_of<M: Module>(
    config: &config::Config,
) -> Result<M::Parameters, config::ConfigError>
where
    M::Parameters: LoadParameters,
{
    // `load` reads with `Config::validated_parameters`, so the ranges are checked there with
    // the line that set each value.
    <M::Parameters as LoadParameters>::load(config, M::NAME)
}

/// Builds a module, loading its parameters if it has any.
pub fn construct<M: Module>(source: &impl ParameterSource) -> Result<M, config::ConfigError> {
    Ok(M::construct(parameters_of::<M>(source)?))
}

impl ModuleEntry {
    /// The entry of `M`.
    pub fn of<M: Module>() -> ModuleEntry {
        ModuleEntry {
            declaration: M::declaration(),
            construct: |config| Ok(Box::new(construct::<M>(config)?)),
            check: |config| parameters_of::<M>(config).map(drop),
            has_parameters: M::parameters_without_file().is_none(),
        }
    }

    /// The entry of `M` whose parameters are loaded by [`LoadParameters`] instead of from
    /// `<NAME>.toml` alone.
    pub fn loading<M: Module>() -> ModuleEntry
    where
        M::Parameters: LoadParameters,
    {
        ModuleEntry {
            declaration: M::declaration(),
            construct: |config| Ok(Box::new(M::construct(loaded_parameters_of::<M>(config)?))),
            check: |config| loaded_parameters_of::<M>(config).map(drop),
            has_parameters: true,
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

    /// Adds `M`.
    pub fn with<M: Module>(mut self) -> Self {
        self.by_name.insert(M::NAME, ModuleEntry::of::<M>());
        self
    }

    /// Adds `M`, whose parameters are loaded by [`LoadParameters`].
    pub fn with_loading<M: Module>(mut self) -> Self
    where
        M::Parameters: LoadParameters,
    {
        self.by_name.insert(M::NAME, ModuleEntry::loading::<M>());
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
            requires: { $($required:ident : $required_type:ty),* $(,)? },
            uses: { $($used:ident : $used_type:ty),* $(,)? },
            provides: { $($provided_type:ty),* $(,)? } $(,)?
        }
    ) => {
        /// The typed inputs of the module: references to the representations it requires and
        /// uses, taken from the blackboard for each update.
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
                    $($required: blackboard.get::<$required_type>()?,)*
                    $($used: blackboard.get::<$used_type>()?,)*
                    _lifetime: ::std::marker::PhantomData,
                })
            }
        }

        impl $crate::HasInputs for $module {
            type Inputs<'a> = $inputs<'a>;
        }

        impl $crate::Module for $module {
            type Parameters = $crate::__module_parameters!($($parameters)?);
            const NAME: &'static str = stringify!($module);

            fn parameters_without_file() -> Option<Self::Parameters> {
                $crate::__module_parameters_without_file!($($parameters)?)
            }

            fn declaration() -> $crate::Declaration {
                use $crate::Representation;
                $crate::Declaration {
                    name: stringify!($module),
                    requires: vec![$(<$required_type>::NAME),*],
                    uses: vec![$(<$used_type>::NAME),*],
                    provides: vec![$(<$provided_type>::NAME),*],
                }
            }

            fn construct(parameters: Self::Parameters) -> Self {
                $module::new(parameters)
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
    () => {
        $crate::NoParameters
    };
    ($parameters:ty) => {
        $parameters
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __module_parameters_without_file {
    () => {
        Some($crate::NoParameters {})
    };
    ($parameters:ty) => {
        None
    };
}
