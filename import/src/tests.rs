use serde_json::json;

use super::*;

fn table(text: &str) -> Table {
    read(text.as_bytes()).expect("a readable file")
}

#[test]
fn the_example_file_maps_every_column_by_name_and_makes_three_items() {
    let table = table(EXAMPLE);
    let mapping = Mapping::guess(&table.headers);
    assert_eq!(mapping.check(), Ok(()));
    let items = items(&table, &mapping);
    assert_eq!(items.iter().map(|i| i.line).collect::<Vec<_>>(), vec![2, 3, 4]);
    let first = items[0].item.as_ref().expect("item");
    assert_eq!(first["pickup"]["latitude"], json!(52.5219));
    assert_eq!(
        first["pickup"]["contact"],
        json!({"name": "Blumen Ana", "phone": "+49 30 1234567"})
    );
    assert_eq!(first["dropoff"]["contact"]["email"], json!("rui@example.com"));
    assert_eq!(first["tip_cents"], json!(300));
    assert_eq!(first["idempotency_key"], json!(items[0].key));
    // Empty cells are left out, not sent empty.
    assert!(first.get("dropoff_window").is_none(), "{first}");
    assert!(items[1].item.as_ref().expect("item").get("tip_cents").is_none());
}

#[test]
fn a_spreadsheet_file_with_semicolons_a_bom_and_its_own_headers_is_read() {
    let text = "\u{feff}Order;Sender;Sender phone;From address;Pickup lat;Pickup lng;Recipient;Phone;Address;Lat;Lng;Vehicle\r\n\
                A-1;Ana;+49 30 1;Alexanderplatz 1;52,5219;13,4132;Rui;+49 151 2;Oranienstr. 25;52,5010;13,4190;car\r\n\
                ;;;;;;;;;;;\r\n";
    let table = table(text);
    assert_eq!(table.rows.len(), 1, "the blank row is skipped");
    let mapping = Mapping::guess(&table.headers);
    assert_eq!(mapping.check(), Ok(()));
    assert_eq!(mapping.header("external_id"), Some("Order"));
    assert_eq!(mapping.header("dropoff_phone"), Some("Phone"));
    let item = items(&table, &mapping).remove(0).item.expect("item");
    assert_eq!(item["dropoff"]["latitude"], json!(52.501));
    assert_eq!(item["external_id"], json!("A-1"));
}

#[test]
fn unmapped_required_columns_are_named_and_a_mapping_can_be_chosen() {
    let table = table("where,who,phone,lat,lng\nBerlin,Rui,+49,52.5,13.4\n");
    let mut mapping = Mapping::guess(&table.headers);
    let refused = mapping.check().expect_err("pickup columns missing");
    assert!(
        refused.0.contains("pickup_address") && refused.0.contains("vehicle_type_id"),
        "{refused}"
    );
    mapping
        .set("dropoff_address", Some("where"))
        .expect("a header of the file");
    assert_eq!(mapping.header("dropoff_address"), Some("where"));
    assert_eq!(
        mapping.set("dropoff_address", Some("there")),
        Err("The file has no column \"there\" for dropoff_address.".to_owned())
    );
    assert!(mapping.set("colour", None).is_err());
    mapping.set_index("dropoff_name", Some(1)).expect("column 2");
    assert_eq!(mapping.header("dropoff_name"), Some("who"));
    assert!(mapping.set_index("dropoff_name", Some(9)).is_err());
}

#[test]
fn rows_alike_get_keys_of_their_own_and_the_same_file_the_same_keys() {
    let text = "dropoff_address,dropoff_latitude,dropoff_longitude\nA,52.5,13.4\nA,52.5,13.4\nB,52.5,13.4\n";
    let keys = |text: &str| {
        let table = table(text);
        items(&table, &Mapping::guess(&table.headers))
            .into_iter()
            .map(|i| i.key)
            .collect::<Vec<_>>()
    };
    let first = keys(text);
    assert_eq!(first.len(), 3);
    assert_ne!(first[0], first[1], "two alike rows are two deliveries");
    assert_ne!(first[0], first[2]);
    assert_eq!(keys(text), first, "imported again, the same keys");
    // A row corrected since is a delivery of its own; the others keep theirs.
    let corrected = keys(&text.replace("B,", "C,"));
    assert_eq!(&corrected[..2], &first[..2]);
    assert_ne!(corrected[2], first[2]);
    // A key column is used as it is.
    let table = table("idempotency_key,dropoff_address\nmine-1,A\n");
    assert_eq!(items(&table, &Mapping::guess(&table.headers))[0].key, "mine-1");
}

#[test]
fn cells_that_are_not_numbers_and_short_rows_are_problems_by_column() {
    let table = table("Lat,dropoff_longitude,tip\nnorth,13.4,2.50\n52.5\n");
    let mapping = Mapping::guess(&table.headers);
    let rows = items(&table, &mapping);
    let problems = rows[0].item.as_ref().expect_err("bad numbers");
    assert_eq!(
        problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
        vec![
            "Lat: \"north\" is not a number.",
            "tip: \"2.50\" is not a whole number."
        ]
    );
    let short = rows[1].item.as_ref().expect_err("one cell of three");
    assert_eq!(short[0].column, None);
    assert!(
        short[0].message.contains("1 cells where the header names 3"),
        "{}",
        short[0]
    );
}

#[test]
fn files_that_cannot_be_imported_say_why() {
    assert!(read(b"").is_err());
    assert!(read(b"a,b\n").expect_err("no rows").0.contains("no deliveries"));
    assert!(read(&[0xff, 0xfe, 0x00]).expect_err("not UTF-8").0.contains("UTF-8"));
    let many = format!("a\n{}", "1\n".repeat(MAX_ROWS + 1));
    assert!(read(many.as_bytes()).expect_err("too many").0.contains("5000"));
}

#[test]
fn answers_are_read_back_into_the_files_columns() {
    let table = table("Recipient phone,pickup_window_start\n1,x\n");
    let mapping = Mapping::guess(&table.headers);
    let mut mapping = mapping;
    mapping.set("dropoff_phone", Some("Recipient phone")).expect("mapped");
    let refused = outcome_of(
        &json!({"error": {"code": "invalid_request", "param": "deliveries.4.dropoff.contact.phone", "message": "Not a phone number."}}),
        &mapping,
    );
    assert_eq!(
        refused,
        Outcome::Refused(vec![Problem {
            column: Some("Recipient phone".into()),
            message: "Not a phone number.".into()
        }])
    );
    // A whole object's error names its first column; an unmapped one, by our name.
    let window = problem_of(
        &json!({"param": "deliveries.0.pickup_window", "message": "Too short."}),
        &mapping,
    );
    assert_eq!(window.column.as_deref(), Some("pickup_window_start"));
    let contact = problem_of(
        &json!({"param": "deliveries.0.pickup.contact", "message": "Needed."}),
        &mapping,
    );
    assert_eq!(contact.column.as_deref(), Some("pickup_name"));
    let whole = problem_of(
        &json!({"code": "invoice_credit_limit_exceeded", "param": "deliveries.3", "message": "Over."}),
        &mapping,
    );
    assert_eq!(whole.column, None);
    assert_eq!(
        outcome_of(&json!({"delivery": {"id": "del_1", "status": "pending"}}), &mapping),
        Outcome::Created {
            id: "del_1".into(),
            status: "pending".into()
        }
    );
    assert_eq!(
        outcome_of(&json!({"checked": {"amount_cents": 1290, "currency": "EUR"}}), &mapping),
        Outcome::Checked {
            amount_cents: 1290,
            currency: "EUR".into()
        }
    );
}

#[test]
fn the_result_file_has_a_row_per_row_with_its_problems() {
    let results = vec![
        RowResult {
            line: 2,
            key: "k1".into(),
            outcome: Outcome::Created {
                id: "del_1".into(),
                status: "pending".into(),
            },
        },
        RowResult {
            line: 3,
            key: "k2".into(),
            outcome: Outcome::Refused(vec![
                Problem {
                    column: Some("Lat".into()),
                    message: "\"x\" is not a number.".into(),
                },
                Problem {
                    column: None,
                    message: "Short.".into(),
                },
            ]),
        },
    ];
    assert_eq!(
        summary(&results),
        Summary {
            created: 1,
            checked: 0,
            refused: 1
        }
    );
    let csv = result_csv(&results);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("line,idempotency_key,result,delivery_id,status,amount_cents,currency,problems")
    );
    assert_eq!(lines.next(), Some("2,k1,created,del_1,pending,,,"));
    assert_eq!(
        lines.next(),
        Some("3,k2,refused,,,,,\"Lat: \"\"x\"\" is not a number.; Short.\"")
    );
}

/// `count` rows of the example's first, each with its own reference.
fn rows(count: usize) -> (Table, Mapping) {
    let mut lines = EXAMPLE.lines();
    let header = lines.next().expect("header");
    let first = lines.next().expect("a row");
    let body: String = (0..count)
        .map(|i| format!("{}\n", first.replace("order-1041", &format!("o-{i}"))))
        .collect();
    let table = table(&format!("{header}\n{body}"));
    let mapping = Mapping::guess(&table.headers);
    (table, mapping)
}

#[test]
fn a_run_sends_batches_of_100_and_reads_each_answer_into_its_row() {
    let (table, mapping) = rows(250);
    let mut items = items(&table, &mapping);
    items[3].item = Err(vec![Problem {
        column: None,
        message: "Bad.".into(),
    }]);
    let mut run = Run::new(items);
    let mut sizes = Vec::new();
    while let Some(batch) = run.next_batch() {
        sizes.push(batch.len());
        let results = batch
            .iter()
            .map(|item| json!({"delivery": {"id": format!("del_{}", item["external_id"].as_str().unwrap_or_default()), "status": "pending"}}))
            .collect();
        run.answer(Answer::Results(results), &mapping);
    }
    assert_eq!(sizes, vec![100, 100, 49], "the row with a problem is never sent");
    assert_eq!(run.progress(), (250, 250));
    let results = run.results();
    assert_eq!(
        results[4].outcome,
        Outcome::Created {
            id: "del_o-4".into(),
            status: "pending".into()
        }
    );
    assert!(matches!(results[3].outcome, Outcome::Refused(_)));
    assert_eq!(
        summary(&results),
        Summary {
            created: 249,
            checked: 0,
            refused: 1
        }
    );
}

#[test]
fn a_call_refused_for_one_item_is_sent_again_without_it_and_a_failed_call_stops_the_run() {
    let (table, mapping) = rows(150);
    let mut run = Run::new(items(&table, &mapping));
    let first = run.next_batch().expect("a batch");
    assert_eq!(first.len(), 100);
    run.answer(
        Answer::ItemRefused {
            index: 2,
            error: json!({"code": "invalid_request", "param": "deliveries.2.notes", "message": "A control character."}),
        },
        &mapping,
    );
    let again = run.next_batch().expect("the others again");
    assert_eq!(again.len(), 100, "the batch's 99 others first, then the next row");
    assert_eq!(again[0]["external_id"], json!("o-0"));
    assert_eq!(again[2]["external_id"], json!("o-3"));
    run.answer(Answer::Failed("cannot reach the Courier API".into()), &mapping);
    assert!(run.next_batch().is_none(), "nothing is sent after a failed call");
    let results = run.results();
    assert_eq!(
        results[2].outcome,
        Outcome::Refused(vec![Problem {
            column: Some("notes".into()),
            message: "A control character.".into()
        }])
    );
    assert_eq!(
        results[149].outcome,
        Outcome::Refused(vec![Problem {
            column: None,
            message: "Not sent: cannot reach the Courier API".into()
        }])
    );
}

#[test]
fn lines_are_counted_alike_with_crlf_and_lf() {
    for text in ["h\nr1\nr2\n", "h\r\nr1\r\nr2\r\n"] {
        let table = table(text);
        assert_eq!(
            table.rows.iter().map(|r| r.line).collect::<Vec<_>>(),
            vec![2, 3],
            "{text:?}"
        );
    }
}
