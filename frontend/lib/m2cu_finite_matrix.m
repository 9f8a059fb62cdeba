function m2cu_finite_matrix(A)
%M2CU_FINITE_MATRIX  Stops the run where the matrix of a solve or a determinant holds Inf or
%   NaN: LAPACK's blocks skip some products by zero and not others, so where Inf or NaN meet
%   them the results (which NaN, which Inf) are LAPACK's own, and MATLAB's and Octave's differ.
bad = 0;
for k = 1:numel(A)
  bad = bad + ~isfinite(A(k));
end
if bad > 0
  error('m2cu:nonfinite', 'm2cu: the matrix holds Inf or NaN, where MATLAB''s and Octave''s solvers give results of their own; m2cu stops');
end
end
