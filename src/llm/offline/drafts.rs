//! First drafts with the mistakes real models make, so that a first offline
//! run shows the critic loop at work: a misspelt field (the structural field
//! check), an `import pandas` (the code policy), a name the sandbox lacks (the
//! trial run), a wrong filter or unit (the offline reviewer's layer review).
//! The rebuild is the clean DAG. Which questions get a mistake, and which
//! one, follows from the seed alone.

use std::collections::HashMap;

use crate::dataset::SchemaCatalogue;
use crate::domain::{GeneratedDag, NodeId};

use super::templates::Candidate;

/// The kinds of planted mistakes, in the order they are handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mistake {
    /// A field name with a typo: the structural field check (`unknown_field`).
    MisspeltField,
    /// `import pandas as pd`: the code policy (`import`).
    PandasImport,
    /// A name the sandbox does not define: the trial run (`runtime_error`).
    MissingName,
    /// A wrong filter or unit: the layer review.
    Slip,
}

const KINDS: [Mistake; 4] = every_variant!(Mistake: MisspeltField, PandasImport, MissingName, Slip);

/// A first draft with a planted mistake.
pub struct Draft {
    /// The DAG the builder sends first.
    pub dag: GeneratedDag,
    /// For a slip: the layer, the node, its code with the slip and what the reviewer says.
    pub review: Option<Review>,
}

/// What the offline reviewer says about a layer holding a planted slip.
pub struct Review {
    /// The layer.
    pub layer: usize,
    /// The node.
    pub node_id: NodeId,
    /// The slipped code the reviewer recognises in the prompt.
    pub code: String,
    /// The finding.
    pub message: String,
}

/// Which of `n` planned questions get a flawed first draft (about a third,
/// spread over the ranks), each with the kind of mistake to try first.
pub fn positions(n: usize, seed: u64) -> Vec<(usize, usize)> {
    let k = n.div_ceil(3);
    if k == 0 {
        return Vec::new();
    }
    let stride = n / k;
    let offset = (seed % stride.max(1) as u64) as usize;
    (0..k).map(|j| ((j * n / k + offset) % n, (j + seed as usize) % KINDS.len())).collect()
}

/// A misspelling of `name`: two letters in the middle swapped (or one dropped).
fn typo(name: &str) -> String {
    let mut chars: Vec<char> = name.chars().collect();
    if chars.len() < 3 {
        return format!("{name}s");
    }
    let i = chars.len() / 2;
    if chars[i - 1] != chars[i] {
        chars.swap(i - 1, i);
    } else {
        chars.remove(i);
    }
    chars.into_iter().collect()
}

/// Module-qualified calls a model writes bare, as if imported `from` the module.
const BARE_NAMES: &[(&str, &str)] = &[
    ("statistics.fmean(", "fmean("),
    ("statistics.quantiles(", "quantiles("),
    ("collections.Counter(", "Counter("),
    ("collections.defaultdict(", "defaultdict("),
    ("math.fsum(", "fsum("),
    ("datetime.datetime.strptime(", "strptime("),
    ("len(", "np.size("),
    ("max(", "np.max("),
];

fn with_code(clean: &GeneratedDag, node: usize, code: String) -> GeneratedDag {
    let mut dag = clean.clone();
    dag.nodes[node].code = code;
    dag
}

/// The draft for `kind`, the slip's review, and the misspelt name (for a misspelling).
fn try_kind(
    kind: Mistake,
    candidate: &Candidate,
    clean: &GeneratedDag,
) -> Option<(GeneratedDag, Option<Review>, Option<String>)> {
    match kind {
        Mistake::MisspeltField => {
            let code = &clean.nodes.first()?.code;
            let field = candidate.reads.iter().find(|f| code.contains(&super::calc::lit(f)))?;
            let misspelt = typo(field);
            let wrong = code.replacen(&super::calc::lit(field), &super::calc::lit(&misspelt), 1);
            Some((with_code(clean, 0, wrong), None, Some(misspelt)))
        }
        Mistake::PandasImport => {
            let last = clean.nodes.len().checked_sub(1)?;
            Some((with_code(clean, last, format!("import pandas as pd\n\n{}", clean.nodes[last].code)), None, None))
        }
        Mistake::MissingName => BARE_NAMES.iter().find_map(|(qualified, bare)| {
            let node = clean.nodes.iter().position(|n| n.code.contains(qualified))?;
            Some((with_code(clean, node, clean.nodes[node].code.replacen(qualified, bare, 1)), None, None))
        }),
        Mistake::Slip => {
            let slip = candidate.slip.as_ref()?;
            let node = clean.nodes.get(slip.step)?;
            let review = Review {
                layer: node.layer,
                node_id: node.node_id.clone(),
                code: slip.code.clone(),
                message: slip.message.clone(),
            };
            Some((with_code(clean, slip.step, slip.code.clone()), Some(review), None))
        }
    }
}

/// A first draft of `clean` with mistake `kind`, when it fits the question.
/// A misspelling must name no field the dataset has, or the field check
/// would rightly let it through.
fn plant(candidate: &Candidate, clean: &GeneratedDag, catalogue: &SchemaCatalogue, kind: Mistake) -> Option<Draft> {
    let (dag, review, misspelt) = try_kind(kind, candidate, clean)?;
    let known = catalogue.known_names(&candidate.input_key);
    let unknown = misspelt.is_none_or(|name| known.is_some_and(|names| !names.contains(&name)));
    unknown.then_some(Draft { dag, review })
}

/// The flawed first drafts of a ranked set (`candidates` with their clean
/// `dags`), by position: about a third of the questions, each kind of mistake
/// in turn. A kind goes to the question nearest its planned position that it
/// fits, so every kind the set allows shows; a kind no question fits gives
/// way to the next.
pub fn plant_all(
    candidates: &[&Candidate],
    dags: &[GeneratedDag],
    catalogue: &SchemaCatalogue,
    seed: u64,
) -> HashMap<usize, Draft> {
    let n = candidates.len();
    let mut drafts = HashMap::new();
    for (position, first) in positions(n, seed) {
        let nearest = (0..n).flat_map(|d| [position + d, position + n - d]).map(|p| p % n);
        let found = (0..KINDS.len()).map(|i| KINDS[(first + i) % KINDS.len()]).find_map(|kind| {
            nearest
                .clone()
                .filter(|p| !drafts.contains_key(p))
                .find_map(|p| plant(candidates[p], &dags[p], catalogue, kind).map(|draft| (p, draft)))
        });
        if let Some((p, draft)) = found {
            drafts.insert(p, draft);
        }
    }
    drafts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_third_of_the_questions_get_a_mistake_and_the_kinds_rotate() {
        let planted = positions(10, 0);
        assert_eq!(planted.len(), 4);
        let at: Vec<usize> = planted.iter().map(|p| p.0).collect();
        assert_eq!(at, vec![0, 2, 5, 7]);
        let kinds: Vec<usize> = planted.iter().map(|p| p.1).collect();
        assert_eq!(kinds, vec![0, 1, 2, 3]);
        assert_ne!(positions(10, 1), planted, "the seed moves them");
        assert_eq!(positions(1, 5).len(), 1);
        assert!(positions(0, 0).is_empty());
    }

    #[test]
    fn typos_differ_from_the_name() {
        assert_eq!(typo("amount"), "amuont");
        assert_eq!(typo("bill_length_mm"), "bill_lnegth_mm");
        assert_eq!(typo("ab"), "abs");
        assert_eq!(typo("aab"), "ab");
    }
}
