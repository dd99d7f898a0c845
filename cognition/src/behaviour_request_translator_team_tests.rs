//! [`BehaviourRequestTranslator`]'s `TeamMessageRequest`: the behaviour's team part, unknown
//! pose and ball, and a priority event per newly heard whistle.

use super::tests::{in_state, walking_request};
use super::*;
use framework::{Blackboard, Module};
use types::{Penalty, PlayState, TeamIntention, TeamRole};

/// The translator as cognition runs it: the blackboard, the module's `update`, the clock.
fn team_request_after_tick(
    translator: &mut BehaviourRequestTranslator,
    request: &BehaviourRequest,
    whistle: WhistleState,
) -> TeamMessageRequest {
    let mut blackboard = Blackboard::new();
    blackboard.insert(request.clone());
    blackboard.insert(in_state(PlayState::Playing));
    blackboard.insert(whistle);
    blackboard.insert(TeamMessageRequest::default());
    assert!(translator
        .update_named("TeamMessageRequest", &mut blackboard)
        .unwrap());
    blackboard.take::<TeamMessageRequest>().unwrap()
}

fn whistle_at(whistle_ns: Option<u64>, count: u64) -> WhistleState {
    WhistleState {
        detected: whistle_ns.is_some(),
        last_whistle_ns: whistle_ns,
        whistle_count: count,
        confidence: 0.0,
    }
}

#[test]
fn the_team_mates_hear_the_behaviours_role_intention_pass_and_walk_target() {
    let mut translator = BehaviourRequestTranslator::default();
    let told =
        team_request_after_tick(&mut translator, &walking_request(), WhistleState::default());
    assert_eq!(
        told,
        TeamMessageRequest {
            role: TeamRole::Striker,
            intention: TeamIntention::Pass,
            pass_target: Some(4),
            // Unknown until localisation and a ball model exist.
            pose: None,
            ball: None,
            walk_target_mm: [1500.0, -750.0],
            priority_events: 0,
        }
    );
    // Penalised: the behaviour's word stands (the network process sends nothing then).
    let mut blackboard = Blackboard::new();
    blackboard.insert(walking_request());
    blackboard.insert(GameState {
        penalty: Some(Penalty::PlayerPushing),
        ..in_state(PlayState::Playing)
    });
    blackboard.insert(WhistleState::default());
    blackboard.insert(TeamMessageRequest::default());
    assert!(translator
        .update_named("TeamMessageRequest", &mut blackboard)
        .unwrap());
    assert_eq!(
        blackboard.get::<TeamMessageRequest>().unwrap().role,
        TeamRole::Striker
    );
}

#[test]
fn a_failing_behaviour_tells_role_and_intention_none() {
    // The error policy's request (behaviours/tests/engine.rs checks that it has the default
    // team part) after a request that had a role.
    let mut translator = BehaviourRequestTranslator::default();
    let told =
        team_request_after_tick(&mut translator, &walking_request(), WhistleState::default());
    assert_eq!(told.role, TeamRole::Striker);
    let failed = BehaviourRequest {
        body: BodyMotion::Stand,
        ..BehaviourRequest::default()
    };
    let told = team_request_after_tick(&mut translator, &failed, WhistleState::default());
    assert_eq!(
        (told.role, told.intention, told.pass_target),
        (TeamRole::None, TeamIntention::None, None)
    );
    assert_eq!(told.walk_target_mm, [0.0, 0.0]);
}

#[test]
fn a_newly_heard_whistle_raises_priority_events_by_one() {
    const MS: u64 = 1_000_000;
    let request = walking_request();
    let mut translator = BehaviourRequestTranslator::default();
    let mut events_at = |whistle: WhistleState, now_ms: u64| {
        translator
            .team_message_request(&request, &whistle, now_ms * MS)
            .priority_events
    };
    assert_eq!(events_at(whistle_at(None, 0), 1_000), 0);
    // A whistle from before the first tick (cognition restarted after it) is old news.
    assert_eq!(events_at(whistle_at(Some(500 * MS), 1), 1_100), 0);
    // A new one: up by one, once.
    assert_eq!(events_at(whistle_at(Some(2_500 * MS), 2), 2_500), 1);
    assert_eq!(events_at(whistle_at(Some(2_500 * MS), 2), 2_600), 1);
    assert_eq!(events_at(whistle_at(Some(2_500 * MS), 2), 9_000), 1);
    // The audio process restarted: its counter starts again, the whistle is forgotten;
    // neither is a whistle.
    assert_eq!(events_at(whistle_at(None, 0), 9_100), 1);
    // Its next whistle counts, though its counter is lower than before.
    assert_eq!(events_at(whistle_at(Some(9_200 * MS), 1), 9_200), 2);
    // Two whistles between two ticks: one priority message is enough.
    assert_eq!(events_at(whistle_at(Some(9_900 * MS), 3), 10_000), 3);
    // A time going backwards (a detector's bug) is not a whistle.
    assert_eq!(events_at(whistle_at(Some(9_800 * MS), 4), 10_100), 3);
}

#[test]
fn the_module_counts_a_whistle_heard_on_the_real_clock_once() {
    let request = walking_request();
    let mut translator = BehaviourRequestTranslator::default();
    let told = team_request_after_tick(&mut translator, &request, whistle_at(None, 0));
    assert_eq!(told.priority_events, 0);
    let whistle = whistle_at(Some(ipc::health::monotonic_ns()), 1);
    for _ in 0..3 {
        let told = team_request_after_tick(&mut translator, &request, whistle.clone());
        assert_eq!(told.priority_events, 1);
    }
    // A restarted cognition (a new translator) does not hear that whistle again.
    let mut restarted = BehaviourRequestTranslator::default();
    let told = team_request_after_tick(&mut restarted, &request, whistle);
    assert_eq!(told.priority_events, 0);
}
