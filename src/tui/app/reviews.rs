//! People's reviews from a run's own screens: `V` opens the review screen
//! over the run shown, the agreement key its figures, and `L` on the question
//! screen writes this reviewer's review of an iteration's answer beside the
//! run (never an event of the run: a replay needs no derived run for it).

use super::App;
use crate::domain::IterationAt;
use crate::tui::screens::agreement::AgreementScreen;
use crate::tui::screens::review::ReviewScreen;

/// Why a run shown has no reviews here.
const NO_RUN_DIR: &str = "no run directory here to keep reviews in";

impl App {
    /// Read people's reviews again against the run as shown.
    pub(super) fn read_reviews(&mut self) {
        if let Some(people) = &mut self.people {
            people.read(&self.state);
        }
    }

    /// The review screen over the run shown, on top (back returns here).
    pub(super) fn open_review(&mut self) {
        let Some(people) = &self.people else { return self.message = Some(NO_RUN_DIR.into()) };
        match people.queue(&self.state) {
            Ok(queue) => {
                self.stack.push(Box::new(ReviewScreen::new(queue)));
                self.refreshed.push(None);
            }
            Err(why) => self.message = Some(why),
        }
    }

    /// The agreement figures of the run shown, on top.
    pub(super) fn open_agreement(&mut self) {
        let Some(people) = &self.people else { return self.message = Some(NO_RUN_DIR.into()) };
        let screen =
            AgreementScreen::new(super::super::review_queue::run_name(&people.run_dir), people.agreement(&self.state));
        self.stack.push(Box::new(screen));
        self.refreshed.push(None);
    }

    /// Write this reviewer's verdict on iteration `at`'s answer.
    pub(super) fn review_label(&mut self, at: &IterationAt, right: bool, reason: String) {
        let Some(people) = &mut self.people else { return self.message = Some(NO_RUN_DIR.into()) };
        self.message = Some(match people.review_iteration(&self.state, at, right, reason) {
            Ok(done) | Err(done) => done,
        });
    }
}
