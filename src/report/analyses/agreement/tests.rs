use super::*;

#[test]
fn kappa_is_known_on_textbook_tables() {
    // 20 both yes, 5 + 10 disagree, 15 both no: po = 0.7, pe = 0.5 → κ = 0.4.
    let table = Table { yes_yes: 20, yes_no: 5, no_yes: 10, no_no: 15 };
    assert!((table.kappa().unwrap() - 0.4).abs() < 1e-12);
    assert_eq!(table.percent_agreement(), Some(0.7));
    let figure = KappaFigure::of(table);
    let [low, high] = figure.interval.unwrap();
    assert!(low < 0.4 && high > 0.4 && low > -1.0 && high <= 1.0, "{low} {high}");
    assert_eq!(KappaFigure::of(table).interval, figure.interval, "seeded");
    assert_eq!(Table { yes_yes: 5, ..Table::default() }.kappa(), None);
    let constant = KappaFigure::of(Table { yes_yes: 9, ..Table::default() });
    assert_eq!((constant.kappa, constant.interval), (None, None));
    assert!(constant.undefined.unwrap().contains("one value to every item"));
    assert!(KappaFigure::of(Table::default()).undefined.unwrap().contains("no item"));
    let perfect = Table { yes_yes: 3, no_no: 4, ..Table::default() };
    assert_eq!(perfect.kappa(), Some(1.0));
}

#[test]
fn alpha_is_known_on_small_cases() {
    // Two raters, always agreeing on two values: α = 1; a unit rated once counts for nothing.
    let units = vec![vec![0, 0], vec![1, 1], vec![0, 0], vec![1]];
    let figure = krippendorff_alpha(&units);
    assert_eq!((figure.alpha, figure.units, figure.values), (Some(1.0), 3, 6));
    // The krippendorff package (0.8.1) on [[1,0,nan,1],[1,1,0,nan],[nan,0,0,1]] (raters × units) gives 0.6.
    let units = vec![vec![1, 1], vec![0, 1, 0], vec![0, 0], vec![1, 1]];
    assert!((krippendorff_alpha(&units).alpha.unwrap() - 0.6).abs() < 1e-12);
    assert_eq!(krippendorff_alpha(&[vec![0, 0], vec![0, 0]]).alpha, None, "one value in all: undefined");
    assert_eq!(krippendorff_alpha(&[]).alpha, None);
}
