//! A seeded generator of synthetic credit-card transactions in the reference
//! design's schema: the source of `sample-data/fraud`. The same row count and
//! seed give the same bytes on every platform (ChaCha8 stream, fixed formats).
//!
//! Structure: ~1% fraud; fraud concentrates in online shopping, grocery and
//! misc categories, happens mostly at night, and has larger amounts;
//! `merch_zipcode` is empty in ~15% of rows.

use std::io::{self, Write};

use chrono::{Duration, NaiveDate, NaiveTime};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The earliest birth date of a customer (a bad date fails the build, not a run).
const OLDEST_BIRTH: NaiveDate = match NaiveDate::from_ymd_opt(1940, 1, 1) {
    Some(date) => date,
    None => panic!("not a date"),
};
/// The first day of the transactions.
const FIRST_DAY: NaiveDate = match NaiveDate::from_ymd_opt(2019, 1, 1) {
    Some(date) => date,
    None => panic!("not a date"),
};

/// The merchant categories of the synthetic transactions (those of the
/// sample fraud data), also used by the benchmarks' generated data.
pub const CATEGORIES: [&str; 14] = [
    "gas_transport",
    "grocery_pos",
    "home",
    "shopping_pos",
    "kids_pets",
    "shopping_net",
    "entertainment",
    "food_dining",
    "personal_care",
    "health_fitness",
    "misc_pos",
    "misc_net",
    "grocery_net",
    "travel",
];
/// Relative frequency of each category among legitimate transactions.
const CATEGORY_WEIGHTS: [u32; 14] = [10, 10, 9, 9, 9, 7, 7, 7, 7, 6, 6, 5, 4, 3];
/// Fraud probability per category (per mille).
const FRAUD_PER_MILLE: [u32; 14] = [4, 28, 2, 7, 2, 30, 2, 2, 2, 1, 3, 26, 3, 4];
const FIRST_F: [&str; 12] =
    ["Jennifer", "Mary", "Linda", "Susan", "Sarah", "Karen", "Lisa", "Nancy", "Betty", "Amanda", "Rachel", "Emily"];
const FIRST_M: [&str; 12] = [
    "James", "John", "Robert", "Michael", "William", "David", "Richard", "Joseph", "Thomas", "Daniel", "Brian", "Kevin",
];
const LAST: [&str; 16] = [
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Garcia",
    "Miller",
    "Davis",
    "Rodriguez",
    "Martinez",
    "Lopez",
    "Wilson",
    "Anderson",
    "Taylor",
    "Moore",
    "Jackson",
];
const STREETS: [&str; 10] = ["Oak", "Pine", "Maple", "Cedar", "Elm", "Lake", "Hill", "Park", "River", "Sunset"];
const SUFFIXES: [&str; 5] = ["St", "Ave", "Rd", "Ln", "Dr"];
/// (city, state, lat, long, population).
const CITIES: [(&str, &str, f64, f64, u32); 16] = [
    ("Columbus", "OH", 39.96, -83.00, 905_748),
    ("Austin", "TX", 30.27, -97.74, 961_855),
    ("Fresno", "CA", 36.74, -119.79, 542_107),
    ("Tulsa", "OK", 36.15, -95.99, 413_066),
    ("Boise", "ID", 43.62, -116.21, 235_684),
    ("Albany", "NY", 42.65, -73.76, 99_224),
    ("Dover", "DE", 39.16, -75.52, 39_403),
    ("Helena", "MT", 46.59, -112.04, 32_091),
    ("Macon", "GA", 32.84, -83.63, 157_346),
    ("Provo", "UT", 40.23, -111.66, 115_162),
    ("Salem", "OR", 44.94, -123.04, 175_535),
    ("Akron", "OH", 41.08, -81.52, 190_469),
    ("Laredo", "TX", 27.53, -99.48, 255_205),
    ("Keene", "NH", 42.93, -72.28, 23_047),
    ("Ames", "IA", 42.03, -93.62, 66_427),
    ("Bangor", "ME", 44.80, -68.77, 31_753),
];
const JOBS: [&str; 10] = [
    "Engineer, civil",
    "Teacher, primary school",
    "Nurse, adult",
    "Accountant",
    "Software developer",
    "Pharmacist",
    "Electrician",
    "Solicitor",
    "Designer, graphic",
    "Police officer",
];
const MERCHANT_WORDS: [&str; 20] = [
    "Kuhn",
    "Bins",
    "Lind",
    "Rippin",
    "Heller",
    "Gutmann",
    "Kutch",
    "Haley",
    "Bahringer",
    "Schumm",
    "Kilback",
    "Stracke",
    "Abbott",
    "Zboncak",
    "Hermann",
    "Cormier",
    "Lemke",
    "Grady",
    "Murray",
    "Kozey",
];

struct Customer {
    cc_num: u64,
    first: &'static str,
    last: &'static str,
    gender: &'static str,
    street: String,
    city: usize,
    zip: u32,
    lat: f64,
    long: f64,
    job: &'static str,
    dob: NaiveDate,
}

fn pick<T: Copy>(rng: &mut ChaCha8Rng, items: &[T]) -> T {
    items[rng.random_range(0..items.len())]
}

fn weighted(rng: &mut ChaCha8Rng, weights: &[u32]) -> usize {
    let total: u32 = weights.iter().sum();
    let mut roll = rng.random_range(0..total);
    for (i, &w) in weights.iter().enumerate() {
        if roll < w {
            return i;
        }
        roll -= w;
    }
    weights.len() - 1
}

fn customers(rng: &mut ChaCha8Rng, count: usize) -> Vec<Customer> {
    (0..count)
        .map(|_| {
            let female = rng.random_bool(0.5);
            let city = rng.random_range(0..CITIES.len());
            let (_, _, lat, long, _) = CITIES[city];
            Customer {
                cc_num: 4_000_000_000_000_000 + rng.random_range(0..999_999_999_999_999u64),
                first: if female { pick(rng, &FIRST_F) } else { pick(rng, &FIRST_M) },
                last: pick(rng, &LAST),
                gender: if female { "F" } else { "M" },
                street: format!("{} {} {}", rng.random_range(1..9999), pick(rng, &STREETS), pick(rng, &SUFFIXES)),
                city,
                zip: rng.random_range(10_000..99_999),
                lat: lat + rng.random_range(-0.2..0.2),
                long: long + rng.random_range(-0.2..0.2),
                job: pick(rng, &JOBS),
                dob: OLDEST_BIRTH + Duration::days(rng.random_range(0..23_000)),
            }
        })
        .collect()
}

/// Write a header and `rows` transactions generated from `seed` to `out`.
pub fn write_fraud_csv(rows: usize, seed: u64, out: &mut impl Write) -> io::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let people = customers(&mut rng, 1000);
    let merchants: Vec<(String, usize)> = (0..700)
        .map(|i| {
            let name = format!("fraud_{}-{}", MERCHANT_WORDS[i % 20], MERCHANT_WORDS[(i / 20 + i) % 20]);
            (name, weighted(&mut rng, &CATEGORY_WEIGHTS))
        })
        .collect();
    let start = FIRST_DAY.and_time(NaiveTime::MIN);
    writeln!(
        out,
        "trans_date_trans_time,cc_num,merchant,category,amt,first,last,gender,street,city,state,zip,lat,long,city_pop,job,dob,trans_num,unix_time,merch_lat,merch_long,is_fraud,merch_zipcode"
    )?;
    let span_minutes = 547 * 24 * 60;
    for i in 0..rows {
        let person = &people[rng.random_range(0..people.len())];
        let (merchant, category) = &merchants[rng.random_range(0..merchants.len())];
        let fraud = rng.random_range(0..1000) < FRAUD_PER_MILLE[*category];
        let minute = (i as i64 * span_minutes) / rows.max(1) as i64 + rng.random_range(0..30);
        let mut when = start + Duration::minutes(minute);
        if fraud && rng.random_bool(0.8) {
            let night = [22, 23, 0, 1, 2, 3][rng.random_range(0..6)];
            when = when.date().and_hms_opt(night, rng.random_range(0..60), 0).unwrap_or(when);
        }
        let base: f64 = rng.random_range(1.0..4.0f64).exp() * if *category == 13 { 3.0 } else { 1.0 };
        let amount = if fraud { base * rng.random_range(4.0..12.0) + 200.0 } else { base };
        let (city, state, _, _, pop) = CITIES[person.city];
        let merch_zip =
            if rng.random_bool(0.15) { String::new() } else { format!("{}", rng.random_range(10_000..99_999)) };
        let trans_num: String = (0..32).map(|_| char::from_digit(rng.random_range(0..16), 16).unwrap_or('0')).collect();
        writeln!(
            out,
            "{},{},{},{},{:.2},{},{},{},{},{},{},{},{:.4},{:.4},{},\"{}\",{},{},{},{:.6},{:.6},{},{}",
            when.format("%d-%m-%Y %H:%M"),
            person.cc_num,
            merchant,
            CATEGORIES[*category],
            amount,
            person.first,
            person.last,
            person.gender,
            person.street,
            city,
            state,
            person.zip,
            person.lat,
            person.long,
            pop,
            person.job,
            person.dob.format("%Y-%m-%d"),
            trans_num,
            when.and_utc().timestamp(),
            person.lat + rng.random_range(-1.0..1.0),
            person.long + rng.random_range(-1.0..1.0),
            u8::from(fraud),
            merch_zip,
        )?;
    }
    Ok(())
}
