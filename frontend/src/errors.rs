//! The run-time errors of generated code: one table of codes, C names and messages, shared by
//! the generated prelude (`#define M2CU_E_INDEX_RANGE 1` and the messages of `m2cu_message`),
//! the MEX gateway (the identifier `m2cu:indexRange` it raises) and the runtime (the
//! [`ErrorCode`] of a failed call).
//!
//! Invariants: codes are positive and below 256 (a status is `code + 256 * site`, see
//! `m2cu_codegen::sites`), each code and name appears once, and a variant is the camel case of
//! its C name (`M2CU_E_INDEX_RANGE` is `IndexRange`), as its identifier is (`m2cu:indexRange`).

macro_rules! error_codes {
    ($($variant:ident = $code:literal, $constant:literal, $message:literal;)*) => {
        /// What stopped a call of generated code: the status it returned, with MATLAB's
        /// message where MATLAB has one ([`ErrorCode::message`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $(
                #[doc = $message]
                $variant = $code,
            )*
        }

        impl ErrorCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The status number the generated code returns.
            pub fn code(self) -> i32 {
                self as i32
            }

            /// The C constant of the generated code (`M2CU_E_INDEX_RANGE`).
            pub fn constant(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $constant,)*
                }
            }

            /// The message: MATLAB's words where MATLAB raises this error, else what m2cu
            /// cannot do there and what to write instead.
            pub fn message(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $message,)*
                }
            }
        }
    };
}

error_codes! {
    IndexRange = 1, "M2CU_E_INDEX_RANGE",
        "Index exceeds the number of array elements.";
    IndexInvalid = 2, "M2CU_E_INDEX_INVALID",
        "Array indices must be positive integers or logical values.";
    Complex = 3, "M2CU_E_COMPLEX",
        "The result would be complex: m2cu keeps sqrt, log, log2, log10, log1p, asin, acos, acosh, atanh, gammaln and ^ of real values real (write sqrt(complex(x)) for the complex root).";
    Gpu = 4, "M2CU_E_GPU",
        "A GPU operation failed.";
    Nomem = 5, "M2CU_E_NOMEM",
        "Out of memory.";
    Size = 6, "M2CU_E_SIZE",
        "Size inputs must be integers.";
    Input = 7, "M2CU_E_INPUT",
        "An input does not have the class or size the program was translated for.";
    Sizes = 8, "M2CU_E_SIZES",
        "Arrays have incompatible sizes for this operation.";
    Empty = 9, "M2CU_E_EMPTY",
        "max, min or gpucoder.reduce of an empty array is empty, which m2cu cannot return here.";
    Expand = 10, "M2CU_E_EXPAND",
        "An operand has extent 1 where the other has more: MATLAB would expand it, but m2cu expands only extents that are 1 when it translates (give that input a type with extent 1).";
    Grow = 11, "M2CU_E_GROW",
        "An assignment past the end of an array would grow it, which m2cu does not do: preallocate the array at its final size.";
    TooBig = 12, "M2CU_E_TOO_BIG",
        "Requested array exceeds the maximum possible variable size (2^48 - 1 elements).";
    Range = 13, "M2CU_E_RANGE",
        "Invalid range: a for loop's range must start at a finite value and have fewer than 2^63 elements.";
    EmptyLoop = 14, "M2CU_E_EMPTY_LOOP",
        "A for loop's variable is read after the loop ran zero times: MATLAB makes it empty (1-by-0), which m2cu cannot represent there; test the loop's bounds instead, or assign the variable after the loop.";
    Undefined = 15, "M2CU_E_UNDEFINED",
        "A variable was used before it was assigned a value on the path the program took (MATLAB: an undefined variable, or an output argument not assigned).";
    Reshape = 16, "M2CU_E_RESHAPE",
        "Number of elements must not change. Use [] as one of the size inputs to automatically calculate the appropriate size for that dimension.";
    Char = 17, "M2CU_E_CHAR",
        "Conversion to char: NaN, negative values and values above 65535 are not character codes.";
    Case = 18, "M2CU_E_CASE",
        "upper, lower and strcmpi change the case of ASCII letters only in m2cu, and this text has a character above 127 (MATLAB would change the case of non-ASCII letters too).";
    User = 20, "M2CU_E_USER",
        "The program called error (the message and identifier travel with this code).";
    SizeDim = 27, "M2CU_E_SIZE_DIM",
        "size: requested dimension DIM out of range (it must be a positive integer).";
    AccumClass = 28, "M2CU_E_ACCUM_CLASS",
        "A variable that starts as a double constant and accumulates integer or single values was used before any update ran (its loop ran zero times, or its branch never held): MATLAB's variable is still the double start there, which m2cu, giving each variable one class, cannot represent. Where the result may take the accumulated class in that case too, start it in that class (s = uint8(0)): MATLAB then gives the same class whether or not an update runs.";
    GrowAmbiguous = 30, "M2CU_E_GROW_AMBIGUOUS",
        "Attempt to grow array along ambiguous dimension.";
    Concatenation = 31, "M2CU_E_CONCATENATION",
        "Dimensions of arrays being concatenated are not consistent.";
    EmptyMean = 33, "M2CU_E_EMPTY_MEAN",
        "mean of a selection that selects nothing: Octave returns a 1-by-0 empty here (MATLAB NaN), which m2cu cannot return; test the count first (if any(mask)).";
    EmptyMask = 34, "M2CU_E_EMPTY_MASK",
        "x(mask) with a 1-by-1 mask that is false is 0-by-0 in MATLAB, which m2cu cannot return here (the selection keeps its row or column type); test the mask first (if mask, y = x; end).";
    UndefinedNamed = 40, "M2CU_E_UNDEFINED_NAMED",
        "A variable was used before it was assigned a value on the path the program took.";
    PrefixCount = 41, "M2CU_E_PREFIX_COUNT",
        "strncmp: N must be greater than 0";
    EmptyRangeNew = 42, "M2CU_E_EMPTY_RANGE_NEW",
        "y(a:b) = v creating y with an empty range a:b makes y 0-by-0 in MATLAB, which m2cu, holding y as a row, cannot represent; test the range first (if b >= a, y(a:b) = v; end) and handle the empty case on its own.";
    ComplexFactor = 43, "M2CU_E_COMPLEX_FACTOR",
        "A complex array times Inf or NaN, or divided by 0 or NaN or Inf: Octave's result depends on whether all the array's imaginary parts are zero, which m2cu does not track; write the loop over the elements (for k = 1:numel(z), w(k) = z(k) * y; end), which m2cu computes as MATLAB does.";
    ReduceDim = 44, "M2CU_E_REDUCE_DIM",
        "Dimension argument must be a positive integer scalar within indexing range.";
    MeanOfEmpty = 45, "M2CU_E_MEAN_OF_EMPTY",
        "mean of an empty value of this size: MATLAB and Octave differ here (mean(zeros(1,0)) is NaN in MATLAB and 1-by-0 in Octave, mean(zeros(0,3)) NaN(1,3) and 0-by-1, mean([], 1) 1-by-0 and NaN), so m2cu stops; test isempty(x) first and give the value you want.";
    ArrayfunEmpty = 46, "M2CU_E_ARRAYFUN_EMPTY",
        "arrayfun of an empty array is an empty double in MATLAB whatever class the function returns, which m2cu (giving the result the function's class) cannot return; test isempty first.";
    NanToLogical = 47, "M2CU_E_NAN_TO_LOGICAL",
        "NaN's cannot be converted to logicals.";
    DeleteRange = 48, "M2CU_E_DELETE_RANGE",
        "Matrix index is out of range for deletion.";
    DeleteOrientation = 49, "M2CU_E_DELETE_ORIENTATION",
        "Deleting elements of a matrix with one index vector or mask: MATLAB makes the result a row, Octave a column, so m2cu stops here; make the matrix a vector first (A = A(:)' for a row) or delete whole rows or columns.";
    NthrootZero = 51, "M2CU_E_NTHROOT_ZERO",
        "nthroot: N must be a real nonzero scalar.";
    NonAsciiClass = 52, "M2CU_E_NON_ASCII_CLASS",
        "isspace, isletter and isstrprop classify ASCII characters only in m2cu, and this text has a character above 127 (Octave's classes there depend on how it reads the text as UTF-8).";
    NthrootNegative = 53, "M2CU_E_NTHROOT_NEGATIVE",
        "If X is negative, N must be an odd integer.";
    DiagVector = 54, "M2CU_E_DIAG_VECTOR",
        "diag of an array that m2cu took for a matrix (its size is not known before the program runs, as for an input declared (:,:)) is a vector or 0-by-0 here, where MATLAB builds a matrix from the vector or returns 0-by-0: declare the input as a row (1,:) or a column (:,1), or write diag(x(:)) to build the matrix.";
    NormMatrix = 55, "M2CU_E_NORM_MATRIX",
        "norm of a matrix: m2cu computes norm(A, 1), norm(A, Inf) and norm(A, 'fro') of a matrix, but not its 2-norm (the largest singular value) or another p-norm, and this array, whose size was not known before the program ran, is a matrix: use one of those, or norm(A(:)) for the Frobenius norm.";
    FindCount = 56, "M2CU_E_FIND_COUNT",
        "find: N must be a non-negative integer";
    FindShape = 57, "M2CU_E_FIND_SHAPE",
        "find: Octave's result here is a row, or 0-by-0 (for a 1-by-1 value that is zero, or a 0-by-0 array), and the result m2cu made, whose shape was fixed before the program ran from the argument's declared size, cannot hold it: declare a row input as (1,:) and a column as (:,1), or test the value first (if any(x) ...).";
    Mtimes = 58, "M2CU_E_MTIMES",
        "Incorrect dimensions for matrix multiplication. Check that the number of columns in the first matrix matches the number of rows in the second matrix. To operate on each element of the matrix individually, use TIMES (.*) for elementwise multiplication.";
    DotSizes = 59, "M2CU_E_DOT_SIZES",
        "dot: sizes of X and Y must match";
    BitshiftK = 60, "M2CU_E_BITSHIFT_K",
        "bitshift: K must be a scalar or array of integers";
    ElementCount = 61, "M2CU_E_ELEMENT_COUNT",
        "Unable to perform assignment because the left and right sides have a different number of elements.";
    ScalarKept = 64, "M2CU_E_SCALAR_KEPT",
        "m2cu: a variable that was a scalar is assigned an array here that does not hold exactly one element: MATLAB makes the variable an array, which the translated types cannot hold (assign the array to a new variable).";
    MtimesScalar = 63, "M2CU_E_MTIMES_SCALAR",
        "m2cu: an operand of `*` is 1-by-1 only when the program runs: MATLAB multiplies each element of the other by it, a result whose shape the translated types cannot hold (give that input a scalar type, or write `.*`).";
    Num2strRows = 62, "M2CU_E_NUM2STR_ROWS",
        "m2cu: num2str of a matrix in printed text is not supported yet (of a row, it prints Octave's columns).";
    ComplexAllReal = 65, "M2CU_E_COMPLEX_ALL_REAL",
        "m2cu: a complex array whose imaginary parts are all zero meets .* or ./ here, and it may come straight from complex(a, b), which Octave keeps complex (any other all-real value it narrows to real): the result differs where an element meets Inf or NaN, and m2cu does not know which holds; write the loop over the elements (for k = 1:numel(z), w(k) = z(k) .* y(k); end), which m2cu computes as MATLAB does.";
    PrefixCountI = 66, "M2CU_E_PREFIX_COUNT_I",
        "strncmpi: N must be greater than 0";
    ReshapeDivisible = 67, "M2CU_E_RESHAPE_DIVISIBLE",
        "Product of known dimensions not divisible into total number of elements.";
    DispExponent = 68, "M2CU_E_DISP_EXPONENT",
        "m2cu: disp of an array with an element of 1e100 or more, or below 1e-99, in magnitude is not supported yet (Octave widens such exponents its own way): print it with fprintf, e.g. fprintf('%g ', x).";
    CellIndexCount = 69, "M2CU_E_CELL_INDEX_COUNT",
        "m2cu: the index of c{k} here does not hold exactly one element (it is empty, or a list of indices): MATLAB makes a list of the cell's contents, which m2cu does not model; index with one number.";
    IndexMatrix = 70, "M2CU_E_INDEX_MATRIX",
        "m2cu: an index whose shape was unknown at translation time is a matrix when the program runs: MATLAB gives the selection the index's shape, which m2cu's selections (a row or a column) cannot take; index with a vector, x(idx(:)).";
    CellTextRows = 71, "M2CU_E_CELL_TEXT_ROWS",
        "m2cu: a char array of more than one row is assigned to a cell's content here: m2cu's cells hold texts of one row; assign the rows one by one.";
}

impl ErrorCode {
    /// The code of a status (`status % 256`), if it is one of the table's.
    pub fn from_status(status: i32) -> Option<ErrorCode> {
        let code = status.rem_euclid(256);
        ErrorCode::ALL.iter().copied().find(|c| c.code() == code)
    }

    /// The identifier a MEX function raises the error with: `m2cu:` and the C name in camel
    /// case (`M2CU_E_INDEX_RANGE` is `m2cu:indexRange`).
    pub fn identifier(self) -> String {
        let words = self.constant().trim_start_matches("M2CU_E_").split('_');
        let mut id = String::from("m2cu:");
        for (k, word) in words.enumerate() {
            let lower = word.to_ascii_lowercase();
            match k {
                0 => id.push_str(&lower),
                _ => {
                    let mut chars = lower.chars();
                    id.extend(chars.next().map(|c| c.to_ascii_uppercase()));
                    id.push_str(chars.as_str());
                }
            }
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_are_unique_and_fit_a_status() {
        let mut codes: Vec<i32> = ErrorCode::ALL.iter().map(|c| c.code()).collect();
        let mut names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.constant()).collect();
        codes.sort();
        codes.dedup();
        names.sort();
        names.dedup();
        assert_eq!(codes.len(), ErrorCode::ALL.len());
        assert_eq!(names.len(), ErrorCode::ALL.len());
        assert!(codes.iter().all(|&c| (1..256).contains(&c)));
    }

    #[test]
    fn identifiers_are_camel_case_names_of_the_codes() {
        assert_eq!(ErrorCode::IndexRange.identifier(), "m2cu:indexRange");
        assert_eq!(ErrorCode::Complex.identifier(), "m2cu:complex");
        assert_eq!(
            ErrorCode::UndefinedNamed.identifier(),
            "m2cu:undefinedNamed"
        );
        for code in ErrorCode::ALL {
            let variant = format!("{code:?}");
            let id = code.identifier();
            let camel = id.trim_start_matches("m2cu:");
            assert!(variant[1..] == camel[1..], "{variant} and {id}");
        }
    }

    #[test]
    fn statuses_with_a_site_keep_their_code() {
        assert_eq!(
            ErrorCode::from_status(1 + 256 * 77),
            Some(ErrorCode::IndexRange)
        );
        assert_eq!(ErrorCode::from_status(0), None);
        assert_eq!(ErrorCode::from_status(255), None);
    }
}
