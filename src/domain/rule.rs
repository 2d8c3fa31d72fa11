//! The rule a finding is filed under: the checks' own rules by name, and
//! whatever else a model or a person names.

/// The rule a [`super::Finding`] is filed under, written as its snake_case
/// name (`runtime_error`); a name no check uses is [`Rule::Other`]. Equality,
/// order and hashing go by the name, so `Other("cycle")` is [`Rule::Cycle`].
#[derive(Debug, Clone)]
pub enum Rule {
    /// The node's code does not parse.
    SyntaxError,
    /// The code does not define the node's function.
    FunctionNotDefined,
    /// The function's parameters are not the node's inputs.
    SignatureMismatch,
    /// The node's code is over the length limit.
    CodeTooLong,
    /// The code is nested too deeply to be parsed.
    CodeTooComplex,
    /// The code reads a field its dataset key does not have.
    UnknownField,
    /// A `strptime` format is not the one the column's metadata gives.
    StrptimeFormat,
    /// Two nodes share an id.
    DuplicateNodeId,
    /// The DAG has no nodes.
    EmptyDag,
    /// An input reference cannot be read.
    BadInputRef,
    /// An input names a dataset key that does not exist.
    UnknownDatasetKey,
    /// An input reads the node's own output.
    SelfReference,
    /// An input or edge comes from a later or the same layer.
    EdgeLayerOrder,
    /// An input names a node that does not exist.
    UnknownNodeRef,
    /// An edge names a node that does not exist.
    UnknownEdgeNode,
    /// An input has no edge.
    MissingEdge,
    /// An edge has no input.
    PhantomEdge,
    /// The nodes' dependencies form a cycle.
    Cycle,
    /// The final answer node is not a node of the DAG.
    MissingFinalNode,
    /// The final answer node is not in the last layer.
    FinalNotInLastLayer,
    /// A node's output reaches no answer.
    DeadNode,
    /// A name starts with an underscore.
    PrivateName,
    /// A `str.format` field reads attributes or indexes.
    FormatFieldAccess,
    /// `.format` called on something other than a string literal.
    ComputedFormat,
    /// An import statement.
    Import,
    /// A class definition.
    ClassDefinition,
    /// A `global` or `nonlocal` statement.
    GlobalStatement,
    /// Async code or `await`.
    Async,
    /// A call of a builtin node code may not use.
    ForbiddenCall,
    /// An attribute that starts with an underscore.
    PrivateAttribute,
    /// An attribute that reaches interpreter frames.
    FrameAttribute,
    /// An attribute assigned or deleted.
    AttributeAssignment,
    /// An `except:` without an exception type.
    BareExcept,
    /// An `except BaseException`.
    CatchBaseException,
    /// The trial run raised.
    RuntimeError,
    /// The trial run's final answer is `None`.
    FinalAnswerNone,
    /// The final answer is not of the type the question expects.
    OutputTypeMismatch,
    /// A problem the layer review names.
    SemanticIssue,
    /// The layer review's reply could not be read.
    UnparseableReview,
    /// The builder's reply could not be read.
    UnparseableResponse,
    /// A DAG written by hand could not be read.
    UnparseableDag,
    /// A note a person wrote on an iteration.
    Note,
    /// A rule no check uses (a model's or a person's name for it).
    Other(String),
}

impl Rule {
    /// The rule's name, as written in traces and reports.
    pub fn name(&self) -> &str {
        match self {
            Self::SyntaxError => "syntax_error",
            Self::FunctionNotDefined => "function_not_defined",
            Self::SignatureMismatch => "signature_mismatch",
            Self::CodeTooLong => "code_too_long",
            Self::CodeTooComplex => "code_too_complex",
            Self::UnknownField => "unknown_field",
            Self::StrptimeFormat => "strptime_format",
            Self::DuplicateNodeId => "duplicate_node_id",
            Self::EmptyDag => "empty_dag",
            Self::BadInputRef => "bad_input_ref",
            Self::UnknownDatasetKey => "unknown_dataset_key",
            Self::SelfReference => "self_reference",
            Self::EdgeLayerOrder => "edge_layer_order",
            Self::UnknownNodeRef => "unknown_node_ref",
            Self::UnknownEdgeNode => "unknown_edge_node",
            Self::MissingEdge => "missing_edge",
            Self::PhantomEdge => "phantom_edge",
            Self::Cycle => "cycle",
            Self::MissingFinalNode => "missing_final_node",
            Self::FinalNotInLastLayer => "final_not_in_last_layer",
            Self::DeadNode => "dead_node",
            Self::PrivateName => "private_name",
            Self::FormatFieldAccess => "format_field_access",
            Self::ComputedFormat => "computed_format",
            Self::Import => "import",
            Self::ClassDefinition => "class_definition",
            Self::GlobalStatement => "global_statement",
            Self::Async => "async",
            Self::ForbiddenCall => "forbidden_call",
            Self::PrivateAttribute => "private_attribute",
            Self::FrameAttribute => "frame_attribute",
            Self::AttributeAssignment => "attribute_assignment",
            Self::BareExcept => "bare_except",
            Self::CatchBaseException => "catch_base_exception",
            Self::RuntimeError => "runtime_error",
            Self::FinalAnswerNone => "final_answer_none",
            Self::OutputTypeMismatch => "output_type_mismatch",
            Self::SemanticIssue => "semantic_issue",
            Self::UnparseableReview => "unparseable_review",
            Self::UnparseableResponse => "unparseable_response",
            Self::UnparseableDag => "unparseable_dag",
            Self::Note => "note",
            Self::Other(name) => name,
        }
    }
}

impl From<&str> for Rule {
    fn from(name: &str) -> Self {
        match name {
            "syntax_error" => Self::SyntaxError,
            "function_not_defined" => Self::FunctionNotDefined,
            "signature_mismatch" => Self::SignatureMismatch,
            "code_too_long" => Self::CodeTooLong,
            "code_too_complex" => Self::CodeTooComplex,
            "unknown_field" => Self::UnknownField,
            "strptime_format" => Self::StrptimeFormat,
            "duplicate_node_id" => Self::DuplicateNodeId,
            "empty_dag" => Self::EmptyDag,
            "bad_input_ref" => Self::BadInputRef,
            "unknown_dataset_key" => Self::UnknownDatasetKey,
            "self_reference" => Self::SelfReference,
            "edge_layer_order" => Self::EdgeLayerOrder,
            "unknown_node_ref" => Self::UnknownNodeRef,
            "unknown_edge_node" => Self::UnknownEdgeNode,
            "missing_edge" => Self::MissingEdge,
            "phantom_edge" => Self::PhantomEdge,
            "cycle" => Self::Cycle,
            "missing_final_node" => Self::MissingFinalNode,
            "final_not_in_last_layer" => Self::FinalNotInLastLayer,
            "dead_node" => Self::DeadNode,
            "private_name" => Self::PrivateName,
            "format_field_access" => Self::FormatFieldAccess,
            "computed_format" => Self::ComputedFormat,
            "import" => Self::Import,
            "class_definition" => Self::ClassDefinition,
            "global_statement" => Self::GlobalStatement,
            "async" => Self::Async,
            "forbidden_call" => Self::ForbiddenCall,
            "private_attribute" => Self::PrivateAttribute,
            "frame_attribute" => Self::FrameAttribute,
            "attribute_assignment" => Self::AttributeAssignment,
            "bare_except" => Self::BareExcept,
            "catch_base_exception" => Self::CatchBaseException,
            "runtime_error" => Self::RuntimeError,
            "final_answer_none" => Self::FinalAnswerNone,
            "output_type_mismatch" => Self::OutputTypeMismatch,
            "semantic_issue" => Self::SemanticIssue,
            "unparseable_review" => Self::UnparseableReview,
            "unparseable_response" => Self::UnparseableResponse,
            "unparseable_dag" => Self::UnparseableDag,
            "note" => Self::Note,
            other => Self::Other(other.to_string()),
        }
    }
}

super::named::known_by_name!(Rule);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_is_written_and_read_as_its_name() {
        for name in ["runtime_error", "cycle", "async", "a_model_s_own_rule"] {
            let rule: Rule = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(serde_json::to_value(&rule).unwrap(), serde_json::json!(name));
            assert_eq!(rule.name(), name);
        }
        assert_eq!(Rule::from("runtime_error"), Rule::RuntimeError, "a check's name reads as its rule");
        assert!(matches!(Rule::from("not_a_check"), Rule::Other(_)));
    }

    #[test]
    fn an_other_rule_with_a_checks_name_is_that_rule() {
        let other = Rule::Other("cycle".into());
        assert_eq!(other, Rule::Cycle);
        assert_eq!(other.cmp(&Rule::Cycle), std::cmp::Ordering::Equal);
        assert!(Rule::from("b_rule") < Rule::Cycle, "ordered by name");
    }
}
