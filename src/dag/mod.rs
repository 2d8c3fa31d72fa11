//! DAG structure: input references, layers and the structural validators.
