//! The shipped process table builds with the program's modules: cognition runs the game state,
//! the behaviour and the translator in that order and shares their results.

use framework::build_graph;

#[test]
fn the_shipped_cognition_process_runs_the_behaviour_between_game_state_and_translator() {
    let config = config::Config::load(&config::default_root(), None, &[]).unwrap();
    let mut modules = motion::modules();
    modules.extend(cognition::modules());
    modules.extend(behaviours::modules());
    modules.extend(audio::modules::modules());
    modules.extend(network::modules());
    modules.extend(perception::modules::modules());
    let graph = build_graph(config.process_table(), &modules, &framework::registry())
        .unwrap_or_else(|error| panic!("{error}"));
    let cognition = graph.process("cognition").unwrap();
    let order: Vec<&str> = cognition
        .order
        .iter()
        .map(|step| step.module.as_str())
        .collect();
    let position = |module: &str| order.iter().position(|m| *m == module).unwrap();
    assert!(
        position("GameStateProvider") < position("BehaviourControl"),
        "{order:?}"
    );
    assert!(
        position("BehaviourControl") < position("BehaviourRequestTranslator"),
        "{order:?}"
    );
    let motion_request = graph
        .channel("MotionRequest")
        .expect("a MotionRequest channel");
    assert_eq!(motion_request.producer, "cognition");
    assert!(
        motion_request.consumers.iter().any(|c| c == "motion"),
        "{motion_request:?}"
    );
    let leds = graph.channel("LedRequest").expect("a LedRequest channel");
    assert_eq!(leds.producer, "cognition");
    assert!(leds.consumers.iter().any(|c| c == "lola"), "{leds:?}");
    // The behaviour reads the team mates the network process hears.
    let team_mates = graph.channel("TeamMates").expect("a TeamMates channel");
    assert_eq!(team_mates.producer, "network");
    assert!(
        team_mates.consumers.iter().any(|c| c == "cognition"),
        "{team_mates:?}"
    );
    // And says what the behaviour tells the team mates (no longer a default of its own).
    let told = graph
        .channel("TeamMessageRequest")
        .expect("a TeamMessageRequest channel");
    assert_eq!(told.producer, "cognition");
    assert!(told.consumers.iter().any(|c| c == "network"), "{told:?}");
    let network = graph.process("network").unwrap();
    assert!(
        !network.defaults.iter().any(|d| d == "TeamMessageRequest"),
        "{:?}",
        network.defaults
    );
}
