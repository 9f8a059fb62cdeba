function k = strfind(s, pattern)
%STRFIND  The places where pattern starts in the char row s, overlapping ones too, as a row;
% [] (0-by-0) when it is nowhere or empty, as MATLAB and Octave give.
if ~ischar(s) || ~ischar(pattern)
  error('strfind: STR must be a string or cell array of strings');
end
k = [];
m = numel(pattern);
if m == 0
  return
end
for i = 1:numel(s) - m + 1
  same = true;
  for j = 1:m
    if s(i + j - 1) ~= pattern(j)
      same = false;
      break
    end
  end
  if same
    k(end+1) = i;
  end
end
end
