function p = nextpow2(x)
%NEXTPOW2  The smallest integer p with 2^p >= abs(x), elementwise; 0 for 0, Inf for Inf, NaN
%   for NaN. As MATLAB, exactly: where log2 rounds to an integer just below the answer
%   (abs(x) = 2^52 + 1), p is still the one with 2^p >= abs(x).
a = abs(x);
p = ceil(log2(a + (a == 0)));
p = p + (2 .^ p < a);
end
