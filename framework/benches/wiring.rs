//! Framework cost per module per tick before and after typed wiring (issue 10, items 3–4;
//! target ≤ 100 ns of framework overhead per module per tick).
//!
//! A chain of 10 modules, each with 2 inputs (the previous two links) and 1 output, whose
//! update does almost nothing, so that the rows show the framework's own cost. In one run, the
//! median over repetitions of the nanoseconds per module per tick of:
//!
//! - the old path, reconstructed: a `HashMap<&str, Box<dyn Any>>` blackboard, the provider
//!   found by comparing names, the output taken out (remove + downcast) and boxed back in, each
//!   input looked up by name and downcast; then with the encode of every provided
//!   representation (rmp-serde) and its publish into a channel, as the old loop did every tick;
//! - the new path: [`Wiring::update`] through the pointers resolved once; then with the outbound
//!   step as the runtime runs it when one of the ten values is read by another process (encoded
//!   and published) and nine are watched by nobody (one lease check each, skipped);
//! - both with the stopwatch the runtime wraps around each module (two clock reads);
//!
//! and, per value, encode + publish of a value nobody watches against the lease check that
//! skips it.
//!
//! `cargo bench -p framework --bench wiring`

use framework::graph::{Inbound, ProviderStep};
use framework::wiring::{Slots, Wiring};
use framework::{DynModule, Module, NoParameters, ProcessPlan, RepresentationRegistry, Update};
use ipc::TripleBuffer;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::HashMap;
use std::hint::black_box;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;
use types::Representation;

const TICKS: u32 = 20_000;
const REPETITIONS: usize = 21;
const MODULES: usize = 10;

/// A value of the size of a small representation (a state and a few numbers).
macro_rules! links {
    ($($name:ident),*) => {
        $(
            #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
            pub struct $name {
                pub count: u64,
                pub values: [f32; 8],
                pub valid: bool,
            }
        )*
        types::representations!($($name),*);
        fn representations() -> RepresentationRegistry {
            RepresentationRegistry::default()$(.with::<$name>())*
        }
    };
}
links!(L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11);

/// Module `$module` requires `$first` and uses `$second`, provides `$output`; the old path's
/// update is written out as the old generated code ran it.
macro_rules! link_modules {
    ($($module:ident($inputs:ident): $first:ident, $second:ident -> $output:ident;)*) => {
        $(
            #[derive(Debug)]
            pub struct $module;
            framework::module! {
                $module {
                    inputs: $inputs,
                    requires: { first: $first },
                    uses: { second: $second },
                    provides: { $output },
                }
            }
            impl $module {
                fn new(_: NoParameters) -> Self {
                    $module
                }
            }
            impl Update<$output> for $module {
                fn update(&mut self, inputs: &$inputs, output: &mut $output) {
                    output.count = inputs.first.count.wrapping_add(inputs.second.count) | 1;
                    output.valid = inputs.first.valid;
                }
            }
            impl $module {
                /// The old generated `update_named`, on the old blackboard.
                fn old_update_named(&mut self, representation: &str, board: &mut OldBlackboard) -> bool {
                    if representation == <$output>::NAME {
                        let mut output = board.take::<$output>();
                        let inputs = $inputs {
                            first: board.get::<$first>(),
                            second: board.get::<$second>(),
                            _lifetime: std::marker::PhantomData,
                        };
                        <Self as Update<$output>>::update(self, &inputs, &mut output);
                        board.insert(output);
                        return true;
                    }
                    false
                }
            }
        )*
    };
}
link_modules! {
    M0(M0Inputs): L1, L0 -> L2;
    M1(M1Inputs): L2, L1 -> L3;
    M2(M2Inputs): L3, L2 -> L4;
    M3(M3Inputs): L4, L3 -> L5;
    M4(M4Inputs): L5, L4 -> L6;
    M5(M5Inputs): L6, L5 -> L7;
    M6(M6Inputs): L7, L6 -> L8;
    M7(M7Inputs): L8, L7 -> L9;
    M8(M8Inputs): L9, L8 -> L10;
    M9(M9Inputs): L10, L9 -> L11;
}

/// The blackboard before typed wiring: values by name, downcast on every access.
#[derive(Default)]
struct OldBlackboard {
    values: HashMap<&'static str, Box<dyn Any + Send + Sync>>,
}

impl OldBlackboard {
    fn insert<T: Representation>(&mut self, value: T) {
        self.values.insert(T::NAME, Box::new(value));
    }
    fn get<T: Representation>(&self) -> &T {
        self.values[T::NAME].downcast_ref().expect("placed")
    }
    fn take<T: Representation>(&mut self) -> T {
        *self
            .values
            .remove(T::NAME)
            .expect("placed")
            .downcast()
            .expect("its type")
    }
    fn encode<T: Representation>(&self, out: &mut Vec<u8>) {
        ipc::channel::encode(self.get::<T>(), out).expect("encodes");
    }
}

fn old_modules_step(modules: &mut [OldModule], board: &mut OldBlackboard) {
    for module in modules.iter_mut() {
        let result = catch_unwind(AssertUnwindSafe(|| (module.update)(module.name, board)));
        black_box(result.ok());
    }
}

/// The old `DynModule::update_named`, behind a pointer.
type OldUpdate = Box<dyn FnMut(&str, &mut OldBlackboard) -> bool>;

struct OldModule {
    name: &'static str,
    update: OldUpdate,
}

macro_rules! old_modules {
    ($($module:ident -> $output:ident),*) => {
        vec![$({
            let mut module = $module;
            OldModule {
                name: <$output>::NAME,
                update: Box::new(move |name, board| module.old_update_named(name, board)),
            }
        }),*]
    };
}

type Encoder = fn(&OldBlackboard, &mut Vec<u8>);

fn old_encoders() -> Vec<Encoder> {
    vec![
        |b, o| b.encode::<L2>(o),
        |b, o| b.encode::<L3>(o),
        |b, o| b.encode::<L4>(o),
        |b, o| b.encode::<L5>(o),
        |b, o| b.encode::<L6>(o),
        |b, o| b.encode::<L7>(o),
        |b, o| b.encode::<L8>(o),
        |b, o| b.encode::<L9>(o),
        |b, o| b.encode::<L10>(o),
        |b, o| b.encode::<L11>(o),
    ]
}

fn plan() -> ProcessPlan {
    let outputs: Vec<String> = (2..=11).map(|i| format!("L{i}")).collect();
    ProcessPlan {
        name: "bench".into(),
        kind: config::ProcessKind::Cognition,
        order: (0..MODULES)
            .map(|i| ProviderStep {
                module: format!("M{i}"),
                representations: vec![outputs[i].clone()],
            })
            .collect(),
        inbound: ["L0", "L1"]
            .map(|name| Inbound {
                channel: name.into(),
                representation: name.into(),
            })
            .to_vec(),
        outbound: outputs.clone(),
        outbound_read: vec!["L11".into()],
        triggers: vec![],
        defaults: vec![],
    }
}

fn new_modules() -> Vec<Box<dyn DynModule>> {
    fn boxed<M: Module<Parameters = NoParameters>>() -> Box<dyn DynModule> {
        Box::new(M::construct(NoParameters {}))
    }
    vec![
        boxed::<M0>(),
        boxed::<M1>(),
        boxed::<M2>(),
        boxed::<M3>(),
        boxed::<M4>(),
        boxed::<M5>(),
        boxed::<M6>(),
        boxed::<M7>(),
        boxed::<M8>(),
        boxed::<M9>(),
    ]
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

/// Median over repetitions of `tick` run `TICKS` times, in ns per call divided by `per`.
fn measure(per: usize, mut tick: impl FnMut()) -> f64 {
    for _ in 0..TICKS / 10 {
        tick();
    }
    median(
        (0..REPETITIONS)
            .map(|_| {
                let started = Instant::now();
                for _ in 0..TICKS {
                    tick();
                }
                started.elapsed().as_nanos() as f64 / f64::from(TICKS) / per as f64
            })
            .collect(),
    )
}

fn main() {
    let registry = representations();
    let channels: Vec<TripleBuffer> = (2..=11)
        .map(|i| {
            let info = registry.get(&format!("L{i}")).unwrap();
            TripleBuffer::create_with_schema(&format!("L{i}"), info.capacity, info.schema_hash)
                .unwrap()
        })
        .collect();
    let mut writers: Vec<_> = channels.iter().map(|c| c.writer().unwrap()).collect();
    let mut scratch = Vec::new();

    // The old path.
    let mut board = OldBlackboard::default();
    for name in registry.names() {
        match name {
            "L0" => board.insert(L0::default()),
            "L1" => board.insert(L1::default()),
            "L2" => board.insert(L2::default()),
            "L3" => board.insert(L3::default()),
            "L4" => board.insert(L4::default()),
            "L5" => board.insert(L5::default()),
            "L6" => board.insert(L6::default()),
            "L7" => board.insert(L7::default()),
            "L8" => board.insert(L8::default()),
            "L9" => board.insert(L9::default()),
            "L10" => board.insert(L10::default()),
            _ => board.insert(L11::default()),
        }
    }
    let mut old = old_modules!(
        M0 -> L2, M1 -> L3, M2 -> L4, M3 -> L5, M4 -> L6,
        M5 -> L7, M6 -> L8, M7 -> L9, M8 -> L10, M9 -> L11
    );
    let encoders = old_encoders();
    let old_dispatch = measure(MODULES, || old_modules_step(&mut old, &mut board));
    let old_tick = measure(MODULES, || {
        old_modules_step(&mut old, &mut board);
        for (encode, writer) in encoders.iter().zip(&mut writers) {
            encode(&board, &mut scratch);
            writer.publish(&scratch).unwrap();
        }
    });
    let old_stopwatch = measure(MODULES, || {
        for module in old.iter_mut() {
            let started = Instant::now();
            let result = catch_unwind(AssertUnwindSafe(|| {
                (module.update)(module.name, &mut board)
            }));
            black_box(result.ok());
            black_box(started.elapsed());
        }
        for (encode, writer) in encoders.iter().zip(&mut writers) {
            encode(&board, &mut scratch);
            writer.publish(&scratch).unwrap();
        }
    });

    // The new path.
    let plan = plan();
    let slots = Slots::of_plan(&plan, &registry).unwrap();
    let mut wiring = Wiring::new(&plan, slots, new_modules()).unwrap();
    let output_slots: Vec<usize> = plan
        .outbound
        .iter()
        .map(|name| wiring.slots().index(name).unwrap())
        .collect();
    let read: Vec<bool> = plan
        .outbound
        .iter()
        .map(|name| plan.outbound_read.contains(name))
        .collect();
    let step = |wiring: &mut Wiring| {
        for index in 0..MODULES {
            let result = catch_unwind(AssertUnwindSafe(|| wiring.update(index)));
            black_box(result.ok());
        }
    };
    let new_dispatch = measure(MODULES, || step(&mut wiring));
    let mut publish_needed = |wiring: &Wiring, writers: &mut [ipc::Writer<'_>]| {
        let mut now = None;
        for ((writer, &slot), &read) in writers.iter_mut().zip(&output_slots).zip(&read) {
            if !read {
                let now = *now.get_or_insert_with(ipc::health::monotonic_ns);
                if !writer.watched(now) {
                    continue;
                }
            }
            wiring.encode(slot, &mut scratch).unwrap();
            writer.publish(&scratch).unwrap();
        }
    };
    let new_tick = measure(MODULES, || {
        step(&mut wiring);
        publish_needed(&wiring, &mut writers);
    });
    let new_stopwatch = measure(MODULES, || {
        for index in 0..MODULES {
            let started = Instant::now();
            let result = catch_unwind(AssertUnwindSafe(|| wiring.update(index)));
            black_box(result.ok());
            black_box(started.elapsed());
        }
        publish_needed(&wiring, &mut writers);
    });
    assert!(wiring.slots().get::<L11>("L11").unwrap().count > 0);

    // One value nobody watches: encoded and published anyway, or skipped after the lease check.
    let slot = output_slots[0];
    let writer = &mut writers[0];
    let mut bytes = Vec::new();
    let encode_unwatched = measure(1, || {
        wiring.encode(slot, &mut bytes).unwrap();
        writer.publish(&bytes).unwrap();
    });
    let skip_unwatched = measure(1, || {
        if writer.watched(ipc::health::monotonic_ns()) {
            wiring.encode(slot, &mut bytes).unwrap();
            writer.publish(&bytes).unwrap();
        }
    });
    let check_only = measure(1, || {
        black_box(writer.watched(black_box(u64::MAX - 1)));
    });

    println!(
        "framework cost per module per tick: {MODULES} modules, 2 inputs and 1 output each, \
         {TICKS} ticks x {REPETITIONS} repetitions (median)"
    );
    println!(
        "{:<62} {:>10} {:>10} {:>7}",
        "", "old ns", "new ns", "old/new"
    );
    let row = |what: &str, old: f64, new: f64| {
        println!("{what:<62} {old:>10.1} {new:>10.1} {:>7.1}", old / new);
    };
    row(
        "inputs, outputs and dispatch (with catch_unwind)",
        old_dispatch,
        new_dispatch,
    );
    row(
        "+ outbound (old: encode all 10; new: 1 read, 9 unwatched)",
        old_tick,
        new_tick,
    );
    row(
        "+ the stopwatch around each module (as the runtime runs)",
        old_stopwatch,
        new_stopwatch,
    );
    println!();
    println!("one value nobody reads, per tick                                  ns");
    println!(
        "{:<62} {encode_unwatched:>10.1}",
        "encode + publish (the old loop)"
    );
    println!(
        "{:<62} {skip_unwatched:>10.1}",
        "lease check with a clock read, skipped (new)"
    );
    println!(
        "{:<62} {check_only:>10.1}",
        "lease check alone (the clock read shared by a tick's outputs)"
    );
}
